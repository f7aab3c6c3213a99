package metadata

import (
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Partition reassignments (AlterPartitionReassignments), checked as Kafka's
// ReplicationControlManager checks them. A reassignment that needs no data
// copied (every target replica already in the ISR) completes at once, as
// Kafka's does when it only drops or reorders replicas; on one node the
// only broker a target may name is the node itself, so every reassignment
// Karst accepts is of that kind. A reassignment that would have to bring a
// new replica up to date is refused: one node has no second replica to
// copy to, and none can be registered.

// ReassignPartition returns the records that move topic's partition to
// target. Errors, with Kafka's messages: UNKNOWN_TOPIC_OR_PARTITION;
// INVALID_REPLICA_ASSIGNMENT for an empty list, an unregistered broker or
// a broker named twice; INVALID_REPLICATION_FACTOR when
// allowReplicationFactorChange is off and the count of replicas changes.
func (img *Image) ReassignPartition(topic string, partition int32, target []int32, allowReplicationFactorChange bool) ([]Record, error) {
	t, p, err := img.reassignable(topic, partition)
	if err != nil {
		return nil, err
	}
	if err := img.validateManualAssignment(target); err != nil {
		return nil, err
	}
	if rf := p.replicationFactor(); !allowReplicationFactorChange && rf != len(target) {
		return nil, opError(kerr.InvalidReplicationFactor, fmt.Sprintf("The replication factor is changed from %d to %d", rf, len(target)))
	}
	if slices.Equal(target, p.Replicas) {
		return nil, nil
	}
	var isr []int32
	for _, id := range target {
		if !slices.Contains(p.ISR, id) {
			return nil, opError(kerr.InvalidReplicaAssignment, fmt.Sprintf(
				"Replica %d of %s:%d is not in the ISR: moving the partition to it needs a copy of its data, which one node cannot make.", id, topic, partition))
		}
	}
	for _, id := range p.ISR {
		if slices.Contains(target, id) {
			isr = append(isr, id)
		}
	}
	change := NewPartitionChangeRecord(img.MetadataVersion(), t.ID, p.ID)
	change.Replicas, change.ISR = slices.Clone(target), isr
	if len(p.Directories) == len(p.Replicas) {
		for _, id := range target {
			change.Directories = append(change.Directories, p.Directories[slices.Index(p.Replicas, id)])
		}
	}
	if len(p.RemovingReplicas) > 0 || len(p.AddingReplicas) > 0 {
		change.RemovingReplicas, change.AddingReplicas = []int32{}, []int32{}
	}
	if !slices.Contains(target, p.Leader) {
		change.Leader = isr[0]
	}
	return []Record{change}, nil
}

// CancelReassignment answers the cancellation of topic's partition's
// reassignment: NO_REASSIGNMENT_IN_PROGRESS unless the partition has
// adding or removing replicas (only a log a Kafka cluster wrote has them),
// whose revert Karst does not do.
func (img *Image) CancelReassignment(topic string, partition int32) error {
	_, p, err := img.reassignable(topic, partition)
	if err != nil {
		return err
	}
	if !p.ReassignmentInProgress() {
		return opError(kerr.NoReassignmentInProgress, "")
	}
	return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf(
		"Karst does not revert the reassignment of %s:%d that another cluster started.", topic, partition))
}

// ReassignmentInProgress reports whether replicas are being added or
// removed, as Kafka's PartitionReassignmentReplicas.isReassignmentInProgress.
func (p *Partition) ReassignmentInProgress() bool {
	return len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0
}

// replicationFactor is the count of replicas the partition ends with:
// during a reassignment, the replicas and those being added without those
// being removed.
func (p *Partition) replicationFactor() int {
	if !p.ReassignmentInProgress() {
		return len(p.Replicas)
	}
	set := map[int32]bool{}
	for _, id := range append(slices.Clone(p.Replicas), p.AddingReplicas...) {
		set[id] = true
	}
	for _, id := range p.RemovingReplicas {
		delete(set, id)
	}
	return len(set)
}

func (img *Image) reassignable(topic string, partition int32) (*Topic, *Partition, error) {
	t, ok := img.Topic(topic)
	if !ok {
		return nil, nil, opError(kerr.UnknownTopicOrPartition, "Unable to find a topic named "+topic+".")
	}
	p, ok := t.Partition(partition)
	if !ok {
		return nil, nil, opError(kerr.UnknownTopicOrPartition, fmt.Sprintf("Unable to find partition %s:%d.", topic, partition))
	}
	return t, p, nil
}

// validateManualAssignment is Kafka's validateManualPartitionAssignment
// without a replication factor to match.
func (img *Image) validateManualAssignment(replicas []int32) error {
	if len(replicas) == 0 {
		return opError(kerr.InvalidReplicaAssignment, "The manual partition assignment includes an empty replica list.")
	}
	sorted := slices.Sorted(slices.Values(replicas))
	for i, id := range sorted {
		if _, ok := img.brokers[id]; !ok {
			return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf(
				"The manual partition assignment includes broker %d, but no such broker is registered.", id))
		}
		if i > 0 && sorted[i-1] == id {
			return opError(kerr.InvalidReplicaAssignment, fmt.Sprintf(
				"The manual partition assignment includes the broker %d more than once.", id))
		}
	}
	return nil
}

// Reassignments returns the partitions of topic with a reassignment in
// progress, among partitions (nil: all of them).
func (t *Topic) Reassignments(partitions []int32) []*Partition {
	var out []*Partition
	if partitions == nil {
		for _, p := range t.Partitions {
			if p != nil && p.ReassignmentInProgress() {
				out = append(out, p)
			}
		}
		return out
	}
	for _, id := range partitions {
		if p, ok := t.Partition(id); ok && p.ReassignmentInProgress() {
			out = append(out, p)
		}
	}
	return out
}

// ReassignPartition commits what Image.ReassignPartition decides.
func (s *Store) ReassignPartition(topic string, partition int32, target []int32, allowReplicationFactorChange bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.cur.Load().ReassignPartition(topic, partition, target, allowReplicationFactorChange)
	if err != nil {
		return err
	}
	return s.commitLocked(recs)
}
