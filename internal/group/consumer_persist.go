package group

import (
	"bytes"
	"slices"
)

// persistedMember is what was last written for a member: the values of
// its records 5, 7 and 8 (nil: none written).
type persistedMember struct {
	meta, target, current []byte
}

// persistedGroup is what was last written for a group, so that persist
// writes only what changed, as Kafka writes a record per change.
type persistedGroup struct {
	written         bool // a ConsumerGroupMetadata record was written
	epoch           int32
	assignmentEpoch int32
	members         map[string]*persistedMember
}

// metadataRecord is the member's ConsumerGroupMemberMetadataValue.
func (m *consumerMember) metadataRecord() *memberMetadataValue {
	v := &memberMetadataValue{InstanceID: m.instanceID, RackID: m.rackID, ClientID: m.clientID,
		ClientHost: m.clientHost, SubscribedTopics: m.topics, RebalanceTimeout: int32(m.rebalanceTimeout.Milliseconds())}
	if v.SubscribedTopics == nil {
		v.SubscribedTopics = []string{}
	}
	if m.regex != "" {
		re := m.regex
		v.SubscribedRegex = &re
	}
	if m.serverAssignor != "" {
		a := m.serverAssignor
		v.ServerAssignor = &a
	}
	return v
}

// currentRecord is the member's ConsumerGroupCurrentMemberAssignmentValue
// (a static member that left has epoch -2 there, as in Kafka).
func (m *consumerMember) currentRecord(ids TopicIDs) *currentAssignmentValue {
	return &currentAssignmentValue{MemberEpoch: m.epoch, PreviousMemberEpoch: m.prevEpoch, State: int8(m.state),
		Assigned: toTopicPartitions(m.assigned, ids), PendingRevocation: toTopicPartitions(m.revoking, ids)}
}

// persist writes what changed in the group since the last write, in
// Kafka's order: tombstones of removed members (current assignment,
// target, metadata), the metadata of touched members, the group epoch,
// the target assignment, then the touched members' current assignments.
// A failed write is logged and returned, and what it held is written
// again with the next change; the group moves on in memory either way.
// The Durable waits for the records to be durable; nil when nothing was
// written.
func (g *consumerGroup) persist(view TopicView, touched ...*consumerMember) (Durable, error) {
	c := g.holder.c
	ids := c.idsFor(view)
	p := &g.persisted
	if p.members == nil {
		p.members = map[string]*persistedMember{}
	}
	recs := slices.Clone(g.pendingRecords)
	type update struct {
		id    string
		field *[]byte
		value []byte
	}
	var updates []update
	var removed []string

	gone := make([]string, 0)
	for id := range p.members {
		if g.members[id] == nil {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		// Kafka's replay wants the current assignment's and the target's
		// tombstones before the member's.
		pm := p.members[id]
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupCurrentAssignment, g.id, id)})
		if pm.target != nil {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMember, g.id, id)})
		}
		if pm.meta != nil {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupMemberMetadata, g.id, id)})
		}
		removed = append(removed, id)
	}
	pmOf := func(id string) *persistedMember {
		pm := p.members[id]
		if pm == nil {
			pm = &persistedMember{}
			p.members[id] = pm
		}
		return pm
	}
	for _, m := range touched {
		if g.members[m.id] != m {
			continue
		}
		v := m.metadataRecord().encode()
		if pm := pmOf(m.id); !bytes.Equal(v, pm.meta) {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupMemberMetadata, g.id, m.id), Value: v})
			updates = append(updates, update{m.id, &pm.meta, v})
		}
	}
	epochChanged := !p.written || p.epoch != g.epoch
	if epochChanged {
		recs = append(recs, Record{Key: consumerGroupMetadataKey(g.id),
			Value: consumerGroupMetadataValue(g.epoch, metadataHash(g.partitionCounts, ids))})
	}
	// Assignments name topics by id: without a view of the ids (a test
	// store with no topics) they are not written.
	targetIDs := make([]string, 0, len(touched))
	targetEpochChanged := ids != nil && g.assignmentEpoch != p.assignmentEpoch
	switch {
	case ids == nil:
	case targetEpochChanged:
		for id := range g.members {
			targetIDs = append(targetIDs, id)
		}
		slices.Sort(targetIDs)
	default:
		for _, m := range touched {
			targetIDs = append(targetIDs, m.id)
		}
	}
	for _, id := range targetIDs {
		if g.members[id] == nil {
			continue
		}
		tps := toTopicPartitions(g.target[id], ids)
		pm := pmOf(id)
		if pm.target == nil && len(tps) == 0 {
			continue // an empty target is what no record means
		}
		v := targetMemberValue(tps)
		if !bytes.Equal(v, pm.target) {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMember, g.id, id), Value: v})
			updates = append(updates, update{id, &pm.target, v})
		}
	}
	if targetEpochChanged {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMetadata, g.id), Value: targetMetadataValue(g.assignmentEpoch)})
	}
	for _, m := range touched {
		if g.members[m.id] != m || ids == nil {
			continue
		}
		v := m.currentRecord(ids).encode()
		if pm := pmOf(m.id); !bytes.Equal(v, pm.current) {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupCurrentAssignment, g.id, m.id), Value: v})
			updates = append(updates, update{m.id, &pm.current, v})
		}
	}
	if len(recs) == 0 {
		return nil, nil // nothing to wait for
	}
	wait, err := g.holder.appendConsumerRecords(recs, ids)
	if err != nil {
		c.logger.Warn("writing consumer group records", "group", g.id, "err", err)
		// Forget what was not written, so the next change writes it.
		for _, u := range updates {
			if pm := p.members[u.id]; pm != nil && pm.meta == nil && pm.target == nil && pm.current == nil {
				delete(p.members, u.id)
			}
		}
		return nil, err
	}
	g.pendingRecords = nil
	for _, u := range updates {
		*u.field = u.value
	}
	for _, id := range removed {
		delete(p.members, id)
	}
	p.written, p.epoch = true, g.epoch
	if targetEpochChanged {
		p.assignmentEpoch = g.assignmentEpoch
	}
	return wait, nil
}

// tombstones are the records that delete the group, in Kafka's order
// (ConsumerGroup.createGroupTombstoneRecords): current assignments,
// targets, the target's epoch, members' metadata, the partition metadata
// of Kafka before 4.1, and the group epoch.
func (g *consumerGroup) tombstones() []Record {
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	for id := range g.persisted.members {
		if g.members[id] == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var recs []Record
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupCurrentAssignment, g.id, id)})
	}
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMember, g.id, id)})
	}
	recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMetadata, g.id)})
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupMemberMetadata, g.id, id)})
	}
	recs = append(recs, Record{Key: consumerKey(keyConsumerGroupPartitionMetadata, g.id)},
		Record{Key: consumerGroupMetadataKey(g.id)})
	return recs
}

// yieldToClassic deletes an empty consumer group when a classic member
// joins its id, as Kafka converts an empty consumer group to a classic
// one, writing the consumer group's tombstones; the caller holds
// holder.mu.
func (c *Coordinator) yieldToClassic(holder *classicGroup) {
	g := c.consumerGroupOf(holder, false)
	if g == nil || g.active() {
		return
	}
	if _, err := holder.appendRecords(g.tombstones()); err != nil {
		c.logger.Warn("writing consumer group tombstones", "group", holder.id, "err", err)
	}
	c.dropConsumerGroup(holder)
}
