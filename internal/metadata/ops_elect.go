package metadata

import (
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Leader elections an operator asks for (ElectLeaders), decided as Kafka's
// ReplicationControlManager.electLeader and PartitionChangeBuilder decide
// them. A preferred election makes the first replica the leader when it
// is alive and in the ISR; an unclean election gives a partition without a
// leader one, from the ISR (or ELR) when a live replica is there, else
// from any live replica, which may lose acknowledged writes and so marks
// the partition RECOVERING as Kafka does. On one node the only live broker
// is the node itself, registered and not fenced.

// leaderRecovering is the LeaderRecoveryState of a partition whose leader
// came from an unclean election (Kafka's LeaderRecoveryState.RECOVERING).
const leaderRecovering int8 = 1

// ElectLeader returns the PartitionChangeRecord of the election, or an
// *Error: UNKNOWN_TOPIC_OR_PARTITION, ELECTION_NOT_NEEDED (the preferred
// replica already leads; for unclean, there is a leader),
// PREFERRED_LEADER_NOT_AVAILABLE or ELIGIBLE_LEADERS_NOT_AVAILABLE.
func (img *Image) ElectLeader(node Node, topic string, partition int32, unclean bool) ([]Record, error) {
	t, ok := img.Topic(topic)
	if !ok {
		return nil, opError(kerr.UnknownTopicOrPartition, "No such topic as "+topic)
	}
	p, ok := t.Partition(partition)
	if !ok {
		return nil, opError(kerr.UnknownTopicOrPartition, fmt.Sprintf("No such partition as %s-%d", topic, partition))
	}
	live := func(id int32) bool {
		b, ok := img.brokers[id]
		return id == node.ID && ok && !b.Fenced
	}
	change := NewPartitionChangeRecord(img.MetadataVersion(), t.ID, p.ID)
	if !unclean {
		if len(p.Replicas) > 0 && p.Leader == p.Replicas[0] {
			return nil, opError(kerr.ElectionNotNeeded, "")
		}
		if len(p.Replicas) == 0 || !live(p.Replicas[0]) || !slices.Contains(p.ISR, p.Replicas[0]) {
			return nil, opError(kerr.PreferredLeaderNotAvailable, "")
		}
		change.Leader = p.Replicas[0]
		return []Record{change}, nil
	}
	if p.Leader >= 0 {
		return nil, opError(kerr.ElectionNotNeeded, "")
	}
	for _, id := range p.Replicas {
		if live(id) && mayLead(p, id) {
			change.Leader = id
			if !slices.Contains(p.ISR, id) {
				change.ISR = append(slices.Clone(p.ISR), id)
			}
			if len(p.EligibleLeaderReplicas) > 0 || len(p.LastKnownELR) > 0 {
				change.EligibleLeaderReplicas, change.LastKnownELR = []int32{}, []int32{}
			}
			return []Record{change}, nil
		}
	}
	for _, id := range p.Replicas {
		if live(id) {
			change.Leader, change.ISR = id, []int32{id}
			change.LeaderRecoveryState = leaderRecovering
			if len(p.EligibleLeaderReplicas) > 0 || len(p.LastKnownELR) > 0 {
				change.EligibleLeaderReplicas, change.LastKnownELR = []int32{}, []int32{}
			}
			return []Record{change}, nil
		}
	}
	return nil, opError(kerr.EligibleLeadersNotAvailable, "")
}

// UnregisterBroker returns what Kafka 4.4's controller writes to remove
// broker id's registration (ReplicationControlManager.
// handleBrokerUnregistered), or BROKER_ID_NOT_REGISTERED with Kafka's
// message: a PartitionChangeRecord taking the broker out of the ISR of
// every partition that has it there, leaving the partition without a
// leader, then the UnregisterBrokerRecord. With eligible leader replicas
// the broker moves to the ELR and last known ELR (the ISR empties, as a
// controlled shutdown leaves it, so the broker may lead again without
// losing writes); without, Kafka never empties an ISR and it stays.
func (img *Image) UnregisterBroker(id int32) ([]Record, error) {
	b, ok := img.brokers[id]
	if !ok {
		return nil, opError(kerr.BrokerIDNotRegistered, fmt.Sprintf("Broker ID %d is not currently registered", id))
	}
	var out []Record
	elr := img.features[FeatureELR] >= 1
	for _, t := range img.Topics() {
		for _, p := range t.Partitions {
			if p == nil || !slices.Contains(p.ISR, id) {
				continue
			}
			c := NewPartitionChangeRecord(img.MetadataVersion(), t.ID, p.ID)
			if p.Leader == id {
				c.Leader = -1
			}
			if isr := slices.DeleteFunc(slices.Clone(p.ISR), func(r int32) bool { return r == id }); len(isr) > 0 || elr {
				c.ISR = isr
			}
			if elr && len(c.ISR) == 0 {
				c.EligibleLeaderReplicas, c.LastKnownELR = []int32{id}, []int32{id}
			}
			out = append(out, c)
		}
	}
	return append(out, &UnregisterBrokerRecord{Version: 0, BrokerID: id, BrokerEpoch: b.Epoch}), nil
}

// ElectLeader commits the election Image.ElectLeader decides.
func (s *Store) ElectLeader(topic string, partition int32, unclean bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.cur.Load().ElectLeader(s.opts.Node, topic, partition, unclean)
	if err != nil {
		return err
	}
	return s.commitLocked(recs)
}

// UnregisterBroker commits the removal of broker id's registration.
func (s *Store) UnregisterBroker(id int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.cur.Load().UnregisterBroker(id)
	if err != nil {
		return err
	}
	return s.commitLocked(recs)
}
