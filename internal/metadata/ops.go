package metadata

import (
	"fmt"
	"math"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Operations validate a request against an image and return the records
// that carry it out. They never change the image: the caller appends the
// records to the log and then replays them (Store does both). Each error
// is an *Error with the code Kafka's controller would return.

// Node describes this broker, the only replica of every partition, and
// the defaults and checks the operations use.
type Node struct {
	ID int32
	// DirectoryID is the directory.id of the log dir holding partitions;
	// zero means unknown and is recorded as DirectoryId.UNASSIGNED. With
	// several log dirs it is zero, as Kafka's controller records new
	// partitions of such a broker UNASSIGNED until the broker says which
	// dir holds them (AssignReplicasToDirs).
	DirectoryID UUID
	// LogDirs are the directory.ids of every log dir, registered with the
	// broker (RegisterBrokerRecord.LogDirs); empty: DirectoryID alone.
	LogDirs []UUID
	// DefaultPartitions (num.partitions) and DefaultReplicationFactor
	// (default.replication.factor) replace -1 in CreateTopics.
	DefaultPartitions        int32
	DefaultReplicationFactor int16
	// Configs knows the config keys; nil accepts any key and value and
	// treats no key as a list.
	Configs ConfigSchema
}

// Names of Kafka's internal topics.
const (
	ConsumerOffsetsTopic  = "__consumer_offsets"
	TransactionStateTopic = "__transaction_state"
	ShareGroupStateTopic  = "__share_group_state"
	ClusterMetadataTopic  = "__cluster_metadata"
)

// IsInternalTopic reports whether Kafka treats name as an internal topic.
func IsInternalTopic(name string) bool {
	return name == ConsumerOffsetsTopic || name == TransactionStateTopic || name == ShareGroupStateTopic
}

const maxTopicNameLength = 249

// ValidateTopicName applies Kafka's Topic.validate and returns the reason
// a name is illegal, or "".
func ValidateTopicName(name string) string {
	switch {
	case name == "":
		return "Topic name is invalid: the empty string is not allowed"
	case name == ".":
		return "Topic name is invalid: '.' is not allowed"
	case name == "..":
		return "Topic name is invalid: '..' is not allowed"
	case javaLength(name) > maxTopicNameLength:
		return fmt.Sprintf("Topic name is invalid: the length of '%s' is longer than the max allowed length %d", name, maxTopicNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Sprintf("Topic name is invalid: '%s' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return ""
}

// javaLength is a string's length as Java counts it, in UTF-16 units, so
// that a long non-ASCII name fails on length first, as in Kafka.
func javaLength(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xffff {
			n++
		}
	}
	return n
}

// MaxRecordsPerOperation is the most records Kafka's controller writes for
// one request (QuorumController.MAX_RECORDS_PER_USER_OP); a request's
// handler should also hold the sum over all its topics to it.
const MaxRecordsPerOperation = 10000

// ErrTooLarge is the refusal of a request that would write more than
// MaxRecordsPerOperation records.
func ErrTooLarge() *Error {
	return opError(kerr.PolicyViolation, "Unable to perform excessively large batch operation.")
}

// MaxPartitionsPerRequest is the most partitions one CreateTopics request
// may ask for over all its topics (ReplicationControlManager's
// MAX_PARTITIONS_PER_BATCH). Kafka checks it before anything else and
// refuses the whole request.
const MaxPartitionsPerRequest = 10000

// ErrTooManyPartitions is the refusal of a request over
// MaxPartitionsPerRequest, given to each of its topics.
func ErrTooManyPartitions() *Error {
	return opError(kerr.PolicyViolation, "Excessively large number of partitions per request.")
}

// RequestedPartitions is how many partitions one CreateTopics topic asks
// for, as Kafka's validateTotalNumberOfPartitions counts them: its manual
// assignments if it has any, else its count, -1 meaning the default and
// other non-positive counts nothing (they fail on their own).
func (node Node) RequestedPartitions(numPartitions int32, assignments int) int64 {
	switch {
	case assignments > 0:
		return int64(assignments)
	case numPartitions == -1:
		return int64(node.DefaultPartitions)
	case numPartitions > 0:
		return int64(numPartitions)
	}
	return 0
}

// CreateTopicRequest is one topic of a CreateTopics request.
type CreateTopicRequest struct {
	Name              string
	NumPartitions     int32 // -1: Node.DefaultPartitions
	ReplicationFactor int16 // -1: Node.DefaultReplicationFactor
	// Assignments, if set, gives the replicas of each partition, in the
	// request's order; then NumPartitions and ReplicationFactor must be -1
	// and the partitions must be 0 to len(Assignments)-1.
	Assignments []PartitionAssignment
	// Configs are the topic's configs; a nil value is refused, as Kafka
	// does.
	Configs map[string]*string
}

// CreateTopic returns the records creating a topic (TopicRecord, its
// ConfigRecords, then one PartitionRecord per partition, in Kafka's order)
// and the new topic's id.
func (img *Image) CreateTopic(node Node, req CreateTopicRequest) ([]Record, UUID, error) {
	name := req.Name
	if name == ClusterMetadataTopic {
		return nil, UUID{}, opError(kerr.InvalidRequest, "Creation of internal topic "+ClusterMetadataTopic+" is prohibited.")
	}
	// Kafka checks validity, then collisions, then existence; a later
	// finding replaces an earlier one.
	var err *Error
	if reason := ValidateTopicName(name); reason != "" {
		err = opError(kerr.InvalidTopicException, reason)
	}
	if other, ok := img.collidingTopic(name); ok {
		err = opError(kerr.InvalidTopicException, fmt.Sprintf("Topic '%s' collides with existing topic: %s", name, other))
	}
	if _, ok := img.topicsByName[name]; ok {
		err = opError(kerr.TopicAlreadyExists, fmt.Sprintf("Topic '%s' already exists.", name))
	}
	if err != nil {
		return nil, UUID{}, err
	}

	configRecords, cerr := img.creationConfigRecords(node, name, req.Configs)
	if cerr != nil {
		return nil, UUID{}, cerr
	}

	var parts int32
	if len(req.Assignments) > 0 {
		if req.ReplicationFactor != -1 {
			return nil, UUID{}, opError(kerr.InvalidRequest, "A manual partition assignment was specified, but replication factor was not set to -1.")
		}
		if req.NumPartitions != -1 {
			return nil, UUID{}, opError(kerr.InvalidRequest, "A manual partition assignment was specified, but numPartitions was not set to -1.")
		}
		if e := img.validatePartitionAssignments(node, req.Assignments); e != nil {
			return nil, UUID{}, e
		}
		parts = int32(len(req.Assignments))
	} else {
		rf := req.ReplicationFactor
		parts = req.NumPartitions
		if rf < -1 || rf == 0 {
			return nil, UUID{}, opError(kerr.InvalidReplicationFactor, "Replication factor must be larger than 0, or -1 to use the default value.")
		}
		if parts < -1 || parts == 0 {
			return nil, UUID{}, opError(kerr.InvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
		}
		if rf == -1 {
			rf = node.DefaultReplicationFactor
		}
		if parts == -1 {
			parts = node.DefaultPartitions
		}
		if !img.brokerActive(node.ID) {
			return nil, UUID{}, opError(kerr.InvalidReplicationFactor, fmt.Sprintf("Unable to replicate the partition %d time(s): %s", rf, noUsableBroker))
		}
		if rf != 1 {
			return nil, UUID{}, opError(kerr.InvalidReplicationFactor, fmt.Sprintf("Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only 1 broker(s) are registered.", rf, rf))
		}
		if parts <= 0 {
			return nil, UUID{}, opError(kerr.InvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
		}
	}

	// The count comes from the wire: check it before sizing anything by it.
	if 1+int64(len(configRecords))+int64(parts) > MaxRecordsPerOperation {
		return nil, UUID{}, ErrTooLarge()
	}
	id := img.newTopicID()
	records := make([]Record, 0, 1+len(configRecords)+int(parts))
	records = append(records, &TopicRecord{Name: name, TopicID: id})
	records = append(records, configRecords...)
	for p := range parts {
		records = append(records, node.newPartitionRecord(img.MetadataVersion(), id, p))
	}
	return records, id, nil
}

// PartitionAssignment is one entry of a CreateTopics manual assignment:
// the replicas of one partition.
type PartitionAssignment struct {
	Partition int32
	Replicas  []int32
}

// validatePartitionAssignments checks a manual assignment as Kafka's
// ReplicationControlManager.createTopic does, entry by entry in request
// order, then that the partitions run from 0 without a gap. The indexes
// come from the wire, so nothing is sized by them.
func (img *Image) validatePartitionAssignments(node Node, assignments []PartitionAssignment) *Error {
	seen := make(map[int32]bool, len(assignments))
	for _, a := range assignments {
		if seen[a.Partition] {
			return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf("Found multiple manual partition assignments for partition %d", a.Partition))
		}
		seen[a.Partition] = true
		if e := img.validateAssignment(node, a.Replicas, a.Partition); e != nil {
			return e
		}
	}
	for p := range int32(len(assignments)) {
		if !seen[p] {
			return opError(kerr.InvalidReplicaAssignment, "partitions should be a consecutive 0-based integer sequence")
		}
	}
	return nil
}

// validateAssignment checks the replicas of one partition as Kafka's
// validateManualPartitionAssignment does, in broker id order: each must be
// a registered broker, and named once. Only this node can be: there is no
// other broker to place a replica on. Then, as Kafka's createTopic and
// createPartitions, some replica must be able to lead (active).
func (img *Image) validateAssignment(node Node, replicas []int32, partition int32) *Error {
	if len(replicas) == 0 {
		return opError(kerr.InvalidReplicaAssignment, "The manual partition assignment includes an empty replica list.")
	}
	sorted := slices.Sorted(slices.Values(replicas))
	for i, r := range sorted {
		if _, registered := img.brokers[r]; !registered || r != node.ID {
			return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes broker %d, but no such broker is registered.", r))
		}
		if i > 0 && sorted[i-1] == r {
			return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes the broker %d more than once.", r))
		}
	}
	if !img.brokerActive(node.ID) {
		return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf("All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", partition))
	}
	return nil
}

// noUsableBroker is Kafka's StripedReplicaPlacer refusal when no broker
// can take a replica: after this node unregistered itself (UnregisterBroker),
// Kafka 4.4.0 answered CreateTopics "Unable to replicate the partition 1
// time(s): " and this, and CreatePartitions this alone (measured on one
// combined node).
const noUsableBroker = "All brokers are currently fenced, or have all their log directories cordoned."

// brokerActive says whether broker id is registered, not fenced and not
// shutting down: Kafka's ClusterControlManager.isActive, which a replica
// must pass to be placed or to lead.
func (img *Image) brokerActive(id int32) bool {
	b, ok := img.brokers[id]
	return ok && !b.Fenced && !b.InControlledShutdown
}

func (node Node) newPartitionRecord(mv int16, topicID UUID, partition int32) *PartitionRecord {
	dir := node.DirectoryID
	if dir.IsZero() {
		dir = MetadataTopicID // DirectoryId.UNASSIGNED
	}
	return &PartitionRecord{
		Version:          recordVersionsAt(mv).partition,
		PartitionID:      partition,
		TopicID:          topicID,
		Replicas:         []int32{node.ID},
		ISR:              []int32{node.ID},
		RemovingReplicas: []int32{},
		AddingReplicas:   []int32{},
		Leader:           node.ID,
		LeaderEpoch:      0,
		PartitionEpoch:   0,
		Directories:      []UUID{dir},
	}
}

func (img *Image) newTopicID() UUID {
	for {
		id := RandomUUID()
		if _, taken := img.topicsByID[id]; !taken {
			return id
		}
	}
}

// DeleteTopic returns the RemoveTopicRecord deleting a topic (its
// partitions and configs go with it on replay). Kafka's controller deletes
// internal topics too; so does Karst, the group and transaction
// coordinators forgetting their state when __consumer_offsets or
// __transaction_state goes.
func (img *Image) DeleteTopic(name string) ([]Record, UUID, error) {
	t, ok := img.topicsByName[name]
	if !ok {
		return nil, UUID{}, opError(kerr.UnknownTopicOrPartition, "")
	}
	return []Record{&RemoveTopicRecord{TopicID: t.ID}}, t.ID, nil
}

// DeleteTopicByID is DeleteTopic for DeleteTopics v6+ requests by id.
func (img *Image) DeleteTopicByID(id UUID) ([]Record, string, error) {
	t, ok := img.topicsByID[id]
	if !ok {
		return nil, "", opError(kerr.UnknownTopicID, "")
	}
	recs, _, err := img.DeleteTopic(t.Name)
	return recs, t.Name, err
}

// CreatePartitions returns the PartitionRecords growing a topic to count
// partitions. assignments, if non-nil, gives the replicas of each new
// partition.
func (img *Image) CreatePartitions(node Node, name string, count int32, assignments [][]int32) ([]Record, error) {
	t, ok := img.topicsByName[name]
	if !ok {
		return nil, opError(kerr.UnknownTopicOrPartition, "")
	}
	have := int32(len(t.Partitions))
	if count == have {
		return nil, opError(kerr.InvalidPartitions, fmt.Sprintf("Topic already has %d partition(s).", have))
	}
	if count < have {
		return nil, opError(kerr.InvalidPartitions, fmt.Sprintf("The topic %s currently has %d partition(s); %d would not be an increase.", name, have, count))
	}
	additional := count - have
	if assignments != nil {
		if int32(len(assignments)) != additional {
			return nil, opError(kerr.InvalidReplicaAssignment, fmt.Sprintf("Attempted to add %d additional partition(s), but only %d assignment(s) were specified.", additional, len(assignments)))
		}
		for i, a := range assignments {
			if e := img.validateAssignment(node, a, have+int32(i)); e != nil {
				return nil, e
			}
		}
	} else if !img.brokerActive(node.ID) {
		return nil, opError(kerr.InvalidReplicationFactor, noUsableBroker)
	}
	// The count comes from the wire: check it before sizing anything by it.
	if additional > MaxRecordsPerOperation {
		return nil, ErrTooLarge()
	}
	records := make([]Record, 0, additional)
	for p := have; p < count; p++ {
		records = append(records, node.newPartitionRecord(img.MetadataVersion(), t.ID, p))
	}
	return records, nil
}

// ProducerIDBlockSize is the size of the producer id blocks the controller
// hands out (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE).
const ProducerIDBlockSize = 1000

// AllocateProducerIDs returns the ProducerIdsRecord reserving the next block
// of producer ids for a broker and the block's first id; the block is
// [first, first+ProducerIDBlockSize). If the broker is registered its epoch
// must match; Karst's single node need not register itself.
func (img *Image) AllocateProducerIDs(brokerID int32, brokerEpoch int64) ([]Record, int64, error) {
	if b, ok := img.brokers[brokerID]; ok && b.Epoch != brokerEpoch {
		return nil, 0, opError(kerr.StaleBrokerEpoch, fmt.Sprintf("Expected broker epoch %d, but got broker epoch %d", b.Epoch, brokerEpoch))
	}
	first := img.nextProducerID
	if first > math.MaxInt64-ProducerIDBlockSize {
		return nil, 0, opError(kerr.UnknownServerError, fmt.Sprintf("Exhausted all producerIds as the next block's end producerId has exceeded the int64 type limit (first id %d)", first))
	}
	return []Record{&ProducerIDsRecord{BrokerID: brokerID, BrokerEpoch: brokerEpoch, NextProducerID: first + ProducerIDBlockSize}}, first, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
