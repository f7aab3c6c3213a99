package metadata

import (
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Leader elections an operator asks for (ElectLeaders), decided as Kafka's
// ReplicationControlManager.electLeader does with PartitionChangeBuilder
// (see election.go). A preferred election makes the first replica the
// leader when it may lead cleanly; an unclean election gives a partition
// without a leader one. Either elects the last known leader of a partition
// whose ISR and ELR are empty, uncleanly (RECOVERING). On one node the only
// live broker is the node itself, registered and not fenced, and its
// replica may lead only from a dir its registration lists.

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
	if !unclean && len(p.Replicas) > 0 && p.Leader == p.Replicas[0] || unclean && p.Leader >= 0 {
		return nil, opError(kerr.ElectionNotNeeded, "")
	}
	acceptable := func(id int32) bool {
		b := img.brokers[id]
		return id == node.ID && img.brokerActive(id) && !(len(b.LogDirs) > 0 && replicaOffline(p, id, b.LogDirs))
	}
	kind := electPreferred
	if unclean {
		kind = electUnclean
	}
	leader, dirty := img.electLeader(p, kind, acceptable)
	change := img.electionChange(t.ID, p, leader, dirty)
	switch {
	case change != nil:
		return []Record{change}, nil
	case unclean:
		return nil, opError(kerr.EligibleLeadersNotAvailable, "")
	default:
		return nil, opError(kerr.PreferredLeaderNotAvailable, "")
	}
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
