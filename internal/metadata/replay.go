package metadata

import (
	"fmt"
	"maps"
	"slices"
)

// Replay applies records in order and returns the resulting image; img is
// left unchanged. It is all or nothing: if a record does not fit the image
// (a partition of an unknown topic, a duplicate topic, ...) the error names
// it and no image is returned. Records that carry nothing the image models
// (NoOpRecord, UnknownRecord, transaction markers, ...) are accepted and
// ignored; metadata transactions are resolved by the Store before records
// reach Replay.
func (img *Image) Replay(records ...Record) (*Image, error) {
	b := newBuilder(img)
	for i, rec := range records {
		if err := b.apply(rec); err != nil {
			return nil, fmt.Errorf("metadata: replaying record %d (type %d): %w", i, rec.APIKey(), err)
		}
	}
	return b.img, nil
}

// builder makes one new image from an old one. The top-level maps are
// copied once; topics, config maps and brokers are copied the first time
// a record changes them and are owned (mutable) from then on.
type builder struct {
	img         *Image
	ownedTopics map[*Topic]bool
	ownedConfig map[ConfigResource]bool
}

func newBuilder(old *Image) *builder {
	return &builder{
		img: &Image{
			topicsByName:   cloneMap(old.topicsByName),
			topicsByID:     cloneMap(old.topicsByID),
			collisionNames: cloneMap(old.collisionNames),
			configs:        cloneMap(old.configs),
			quotas:         cloneMap(old.quotas),
			features:       cloneMap(old.features),
			brokers:        cloneMap(old.brokers),
			nextProducerID: old.nextProducerID,
			scram:          cloneMap(old.scram),

			delegationTokens: cloneMap(old.delegationTokens),
			acls:             cloneMap(old.acls),
		},
		ownedTopics: map[*Topic]bool{},
		ownedConfig: map[ConfigResource]bool{},
	}
}

// cloneMap copies m, never returning nil, so a zero Image replays too.
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return maps.Clone(m)
}

func (b *builder) mutableTopic(id UUID) (*Topic, error) {
	t, ok := b.img.topicsByID[id]
	if !ok {
		return nil, fmt.Errorf("unknown topic id %s", id)
	}
	if b.ownedTopics[t] {
		return t, nil
	}
	c := &Topic{Name: t.Name, ID: t.ID, Partitions: slices.Clone(t.Partitions)}
	b.img.topicsByID[id] = c
	b.img.topicsByName[c.Name] = c
	b.ownedTopics[c] = true
	return c, nil
}

func (b *builder) apply(rec Record) error {
	switch r := rec.(type) {
	case *TopicRecord:
		return b.applyTopic(r)
	case *PartitionRecord:
		return b.applyPartition(r)
	case *PartitionChangeRecord:
		return b.applyPartitionChange(r)
	case *RemoveTopicRecord:
		return b.applyRemoveTopic(r)
	case *ClearElrRecord:
		return b.applyClearElr(r)
	case *ConfigRecord:
		b.applyConfig(r)
	case *ClientQuotaRecord:
		b.applyClientQuota(r)
	case *UserScramCredentialRecord:
		b.applyUserScramCredential(r)
	case *RemoveUserScramCredentialRecord:
		return b.applyRemoveUserScramCredential(r)
	case *DelegationTokenRecord:
		b.applyDelegationToken(r)
	case *RemoveDelegationTokenRecord:
		b.applyRemoveDelegationToken(r)
	case *AccessControlEntryRecord:
		b.applyAccessControlEntry(r)
	case *RemoveAccessControlEntryRecord:
		return b.applyRemoveAccessControlEntry(r)
	case *FeatureLevelRecord:
		if r.FeatureLevel == 0 && r.Name != FeatureMetadataVersion {
			delete(b.img.features, r.Name)
		} else {
			b.img.features[r.Name] = r.FeatureLevel
		}
	case *ProducerIDsRecord:
		if r.NextProducerID <= b.img.nextProducerID {
			return fmt.Errorf("next producer id %d does not advance past %d", r.NextProducerID, b.img.nextProducerID)
		}
		b.img.nextProducerID = r.NextProducerID
	case *RegisterBrokerRecord:
		b.img.brokers[r.BrokerID] = &Broker{
			ID:                   r.BrokerID,
			Epoch:                r.BrokerEpoch,
			IncarnationID:        r.IncarnationID,
			EndPoints:            slices.Clone(r.EndPoints),
			Features:             slices.Clone(r.Features),
			Rack:                 r.Rack,
			Fenced:               r.Fenced,
			InControlledShutdown: r.InControlledShutdown,
			LogDirs:              slices.Clone(r.LogDirs),
			CordonedLogDirs:      slices.Clone(r.CordonedLogDirs),
		}
	case *BrokerRegistrationChangeRecord:
		return b.applyBrokerChange(r)
	case *UnregisterBrokerRecord:
		old, ok := b.img.brokers[r.BrokerID]
		if !ok || old.Epoch != r.BrokerEpoch {
			return fmt.Errorf("no broker %d at epoch %d to unregister", r.BrokerID, r.BrokerEpoch)
		}
		delete(b.img.brokers, r.BrokerID)
	}
	return nil
}

func (b *builder) applyTopic(r *TopicRecord) error {
	if _, ok := b.img.topicsByName[r.Name]; ok {
		return fmt.Errorf("topic %q already exists", r.Name)
	}
	if _, ok := b.img.topicsByID[r.TopicID]; ok {
		return fmt.Errorf("topic id %s already in use", r.TopicID)
	}
	t := &Topic{Name: r.Name, ID: r.TopicID}
	b.img.topicsByName[r.Name] = t
	b.img.topicsByID[r.TopicID] = t
	b.ownedTopics[t] = true
	if hasCollisionChars(r.Name) {
		b.img.collisionNames[unifyCollisionChars(r.Name)] = r.Name
	}
	return nil
}

func (b *builder) applyPartition(r *PartitionRecord) error {
	if r.PartitionID < 0 {
		return fmt.Errorf("negative partition id %d", r.PartitionID)
	}
	t, err := b.mutableTopic(r.TopicID)
	if err != nil {
		return err
	}
	// Bound growth so a corrupt id cannot allocate gigabytes: partitions
	// arrive densely, so an id far past the end is not a real log.
	if int(r.PartitionID) > len(t.Partitions)+maxPartitionGap {
		return fmt.Errorf("partition id %d far beyond %d partitions of %q", r.PartitionID, len(t.Partitions), t.Name)
	}
	for int(r.PartitionID) >= len(t.Partitions) {
		t.Partitions = append(t.Partitions, nil)
	}
	t.Partitions[r.PartitionID] = (&Partition{
		ID:                     r.PartitionID,
		Replicas:               r.Replicas,
		ISR:                    r.ISR,
		RemovingReplicas:       r.RemovingReplicas,
		AddingReplicas:         r.AddingReplicas,
		Directories:            r.Directories,
		Leader:                 r.Leader,
		LeaderRecoveryState:    r.LeaderRecoveryState,
		LeaderEpoch:            r.LeaderEpoch,
		PartitionEpoch:         r.PartitionEpoch,
		EligibleLeaderReplicas: r.EligibleLeaderReplicas,
		LastKnownELR:           r.LastKnownELR,
	}).clone()
	return nil
}

const maxPartitionGap = 1 << 16

// applyPartitionChange merges a change as PartitionRegistration.merge does:
// a leader change bumps the leader epoch, every change bumps the partition
// epoch.
func (b *builder) applyPartitionChange(r *PartitionChangeRecord) error {
	t, err := b.mutableTopic(r.TopicID)
	if err != nil {
		return err
	}
	old, ok := t.Partition(r.PartitionID)
	if !ok {
		return fmt.Errorf("unknown partition %d of %q", r.PartitionID, t.Name)
	}
	p := old.clone()
	if r.Replicas != nil {
		p.Replicas = slices.Clone(r.Replicas)
	}
	if r.Directories != nil {
		p.Directories = slices.Clone(r.Directories)
	}
	if r.ISR != nil {
		p.ISR = slices.Clone(r.ISR)
	}
	if r.RemovingReplicas != nil {
		p.RemovingReplicas = slices.Clone(r.RemovingReplicas)
	}
	if r.AddingReplicas != nil {
		p.AddingReplicas = slices.Clone(r.AddingReplicas)
	}
	if r.Leader != NoLeaderChange {
		p.Leader = r.Leader
		p.LeaderEpoch++
	}
	if r.LeaderRecoveryState != noRecoveryChange {
		p.LeaderRecoveryState = r.LeaderRecoveryState
	}
	if r.EligibleLeaderReplicas != nil {
		p.EligibleLeaderReplicas = slices.Clone(r.EligibleLeaderReplicas)
	}
	if r.LastKnownELR != nil {
		p.LastKnownELR = slices.Clone(r.LastKnownELR)
	}
	p.PartitionEpoch++
	t.Partitions[r.PartitionID] = p
	return nil
}

// applyClearElr is ReplicationControlManager.replay(ClearElrRecord): each
// partition holding ELR or last known ELR changes as if by a
// PartitionChangeRecord emptying both (its partition epoch moves). A named
// topic must exist.
func (b *builder) applyClearElr(r *ClearElrRecord) error {
	var ids []UUID
	if r.TopicName == "" {
		for id := range b.img.topicsByID {
			ids = append(ids, id)
		}
	} else {
		t, ok := b.img.Topic(r.TopicName)
		if !ok {
			return fmt.Errorf("clearing the ELR of unknown topic %q", r.TopicName)
		}
		ids = append(ids, t.ID)
	}
	for _, id := range ids {
		for _, p := range b.img.topicsByID[id].Partitions {
			if p == nil || len(p.EligibleLeaderReplicas) == 0 && len(p.LastKnownELR) == 0 {
				continue
			}
			c := NewPartitionChangeRecord(b.img.MetadataVersion(), id, p.ID)
			c.EligibleLeaderReplicas, c.LastKnownELR = []int32{}, []int32{}
			if err := b.applyPartitionChange(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyRemoveTopic drops the topic with its partitions and topic configs,
// as Kafka's ReplicationControlManager does on replay.
func (b *builder) applyRemoveTopic(r *RemoveTopicRecord) error {
	t, ok := b.img.topicsByID[r.TopicID]
	if !ok {
		return fmt.Errorf("unknown topic id %s", r.TopicID)
	}
	delete(b.img.topicsByID, r.TopicID)
	delete(b.img.topicsByName, t.Name)
	if hasCollisionChars(t.Name) && b.img.collisionNames[unifyCollisionChars(t.Name)] == t.Name {
		delete(b.img.collisionNames, unifyCollisionChars(t.Name))
	}
	res := ConfigResource{ConfigResourceTopic, t.Name}
	delete(b.img.configs, res)
	delete(b.ownedConfig, res)
	return nil
}

func (b *builder) applyConfig(r *ConfigRecord) {
	res := ConfigResource{r.ResourceType, r.ResourceName}
	m := b.img.configs[res]
	if !b.ownedConfig[res] {
		m = maps.Clone(m)
		if m == nil {
			m = map[string]string{}
		}
		b.ownedConfig[res] = true
	}
	if r.Value == nil {
		delete(m, r.Name)
	} else {
		m[r.Name] = *r.Value
	}
	if len(m) == 0 {
		delete(b.img.configs, res)
		delete(b.ownedConfig, res)
		return
	}
	b.img.configs[res] = m
}

func (b *builder) applyBrokerChange(r *BrokerRegistrationChangeRecord) error {
	old, ok := b.img.brokers[r.BrokerID]
	if !ok {
		return fmt.Errorf("unknown broker %d", r.BrokerID)
	}
	if old.Epoch != r.BrokerEpoch {
		return fmt.Errorf("broker %d epoch %d, change is for epoch %d", r.BrokerID, old.Epoch, r.BrokerEpoch)
	}
	c := *old
	switch r.Fenced {
	case BrokerFenced:
		c.Fenced = true
	case BrokerUnfenced:
		c.Fenced = false
	}
	if r.InControlledShutdown == 1 {
		c.InControlledShutdown = true
	}
	if len(r.LogDirs) > 0 {
		c.LogDirs = slices.Clone(r.LogDirs)
	}
	if r.CordonedLogDirs != nil {
		c.CordonedLogDirs = slices.Clone(r.CordonedLogDirs)
	}
	b.img.brokers[r.BrokerID] = &c
	return nil
}
