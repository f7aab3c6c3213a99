package metadata

import (
	"slices"
	"sort"
	"strings"
)

// Image is an immutable snapshot of the cluster metadata: the result of
// replaying every committed record. Request handlers share one Image
// without locks; a change builds a new Image (copy-on-write: untouched
// topics and config maps are shared) and the Store swaps it in atomically.
// Nothing reachable from an Image may be modified: slices and maps returned
// by its methods are read-only.
type Image struct {
	topicsByName map[string]*Topic
	topicsByID   map[UUID]*Topic
	// collisionNames maps a name with '.' or '_' unified to '_' to the
	// existing topic that has it (at most one: Kafka refuses a second).
	collisionNames map[string]string
	configs        map[ConfigResource]map[string]string
	// quotas are the client quotas by QuotaEntity.key.
	quotas         map[string]*Quotas
	features       map[string]int16
	brokers        map[int32]*Broker
	nextProducerID int64
	// scram are the SCRAM credentials by user and mechanism.
	scram map[scramKey]ScramCredential
	// delegationTokens are the delegation tokens by token id.
	delegationTokens map[string]DelegationToken
	// acls are the ACLs by id.
	acls map[UUID]ACL
}

// Topic is one topic. Partitions[i] is partition i; a nil entry is a
// partition id not (yet) created, which a consistent log never leaves.
type Topic struct {
	Name       string
	ID         UUID
	Partitions []*Partition
}

// Partition is the replica state of one partition, as PartitionRegistration
// in Kafka.
type Partition struct {
	ID                     int32
	Replicas               []int32
	ISR                    []int32
	RemovingReplicas       []int32
	AddingReplicas         []int32
	Directories            []UUID
	Leader                 int32
	LeaderRecoveryState    int8
	LeaderEpoch            int32
	PartitionEpoch         int32
	EligibleLeaderReplicas []int32
	LastKnownELR           []int32
}

// ConfigResource names a config resource: Type is ConfigResourceTopic or
// ConfigResourceBroker (other types are kept as replayed); Name is the
// topic, the broker id in decimal, or "" for the cluster-wide broker
// default.
type ConfigResource struct {
	Type int8
	Name string
}

// Broker is a registered broker.
type Broker struct {
	ID                   int32
	Epoch                int64
	IncarnationID        UUID
	EndPoints            []BrokerEndpoint
	Features             []BrokerFeature
	Rack                 *string
	Fenced               bool
	InControlledShutdown bool
	LogDirs              []UUID
	CordonedLogDirs      []UUID // nil until the broker reports them (v4+)
}

// EmptyImage is the image of an empty log.
func EmptyImage() *Image {
	return &Image{
		topicsByName:   map[string]*Topic{},
		topicsByID:     map[UUID]*Topic{},
		collisionNames: map[string]string{},
		configs:        map[ConfigResource]map[string]string{},
		quotas:         map[string]*Quotas{},
		features:       map[string]int16{},
		brokers:        map[int32]*Broker{},
		scram:          map[scramKey]ScramCredential{},

		delegationTokens: map[string]DelegationToken{},
		acls:             map[UUID]ACL{},
	}
}

// Topic returns the topic named name.
func (img *Image) Topic(name string) (*Topic, bool) {
	t, ok := img.topicsByName[name]
	return t, ok
}

// TopicByID returns the topic with the given id.
func (img *Image) TopicByID(id UUID) (*Topic, bool) {
	t, ok := img.topicsByID[id]
	return t, ok
}

// TopicCount returns the number of topics.
func (img *Image) TopicCount() int { return len(img.topicsByName) }

// Topics returns every topic sorted by name.
func (img *Image) Topics() []*Topic {
	out := make([]*Topic, 0, len(img.topicsByName))
	for _, t := range img.topicsByName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Partition returns partition p of the topic.
func (t *Topic) Partition(p int32) (*Partition, bool) {
	if p < 0 || int(p) >= len(t.Partitions) || t.Partitions[p] == nil {
		return nil, false
	}
	return t.Partitions[p], true
}

// Configs returns the explicitly set configs of a resource (read-only;
// nil if none).
func (img *Image) Configs(res ConfigResource) map[string]string { return img.configs[res] }

// TopicConfigs returns the explicitly set configs of a topic.
func (img *Image) TopicConfigs(topic string) map[string]string {
	return img.configs[ConfigResource{ConfigResourceTopic, topic}]
}

// BrokerConfigs returns the explicitly set configs of a broker resource
// ("" = cluster default).
func (img *Image) BrokerConfigs(name string) map[string]string {
	return img.configs[ConfigResource{ConfigResourceBroker, name}]
}

// FeatureLevel returns the finalized level of a feature, 0 if unset.
func (img *Image) FeatureLevel(name string) int16 { return img.features[name] }

// Features returns every finalized feature (read-only).
func (img *Image) Features() map[string]int16 { return img.features }

// MetadataVersion returns the metadata.version feature level.
func (img *Image) MetadataVersion() int16 { return img.features[FeatureMetadataVersion] }

// NextProducerID is the first producer id not yet handed out in a block.
func (img *Image) NextProducerID() int64 { return img.nextProducerID }

// Broker returns a registered broker.
func (img *Image) Broker(id int32) (*Broker, bool) {
	b, ok := img.brokers[id]
	return b, ok
}

// collidingTopic returns the existing topic whose name collides with name
// once '.' and '_' are unified, if any.
func (img *Image) collidingTopic(name string) (string, bool) {
	if !hasCollisionChars(name) {
		return "", false
	}
	other, ok := img.collisionNames[unifyCollisionChars(name)]
	return other, ok
}

func hasCollisionChars(name string) bool { return strings.ContainsAny(name, "._") }

func unifyCollisionChars(name string) string { return strings.ReplaceAll(name, ".", "_") }

// clone copies the partition, sharing nothing mutable with p.
func (p *Partition) clone() *Partition {
	c := *p
	c.Replicas = slices.Clone(p.Replicas)
	c.ISR = slices.Clone(p.ISR)
	c.RemovingReplicas = slices.Clone(p.RemovingReplicas)
	c.AddingReplicas = slices.Clone(p.AddingReplicas)
	c.Directories = slices.Clone(p.Directories)
	c.EligibleLeaderReplicas = slices.Clone(p.EligibleLeaderReplicas)
	c.LastKnownELR = slices.Clone(p.LastKnownELR)
	return &c
}

// ConfigResourceNames returns, sorted, the names of the resources of one
// type that have configs set.
func (img *Image) ConfigResourceNames(resType int8) []string {
	var out []string
	for res := range img.configs {
		if res.Type == resType {
			out = append(out, res.Name)
		}
	}
	slices.Sort(out)
	return out
}
