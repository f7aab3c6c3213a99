package metadata

import (
	"slices"
	"testing"
)

// A log as Apache Kafka 4.1 leaves it after a controlled shutdown: its
// broker registered then fenced, partitions leaderless with the node in
// the ELR. A Karst store opened on it unregisters the stale broker and
// leads every partition again, with the leader epoch bumped.
func TestOpenStoreTakesOverKafkaLog(t *testing.T) {
	l := newMemLog()
	openStore(t, l) // bootstrap
	topic := UUID{9, 9}
	l.appendRaw(&RegisterBrokerRecord{Version: 3, BrokerID: 1, BrokerEpoch: 12, Fenced: true})
	l.appendRaw(&BrokerRegistrationChangeRecord{Version: 0, BrokerID: 1, BrokerEpoch: 12, Fenced: BrokerUnfenced})
	l.appendRaw(&TopicRecord{Name: "t", TopicID: topic},
		&PartitionRecord{Version: 2, PartitionID: 0, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1},
		&PartitionRecord{Version: 2, PartitionID: 1, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1})
	shut := func(p int32) Record {
		c := NewPartitionChangeRecord(MaxMetadataVersion, topic, p)
		c.Leader, c.ISR, c.EligibleLeaderReplicas, c.LastKnownELR = -1, []int32{}, []int32{1}, []int32{1}
		return c
	}
	l.appendRaw(shut(0), shut(1))

	s := openStore(t, l)
	img := s.Image()
	if b, ok := img.Broker(1); !ok || b.Epoch != SingleNodeBrokerEpoch || b.Fenced || len(b.LogDirs) != 1 || b.LogDirs[0] != testNode.DirectoryID {
		t.Fatalf("registration after take-over %+v", b)
	}
	for _, p := range mustTopic(t, img, "t").Partitions {
		if p.Leader != 1 || !slices.Equal(p.ISR, []int32{1}) || p.LeaderEpoch != 2 || len(p.EligibleLeaderReplicas) != 0 || len(p.LastKnownELR) != 0 {
			t.Fatalf("partition after take-over %+v", p)
		}
	}
	if _, err := s.AllocateProducerIDs(testNode.ID, SingleNodeBrokerEpoch); err != nil {
		t.Fatalf("producer ids after take-over: %v", err)
	}
	// A second open finds its own image: nothing more to write.
	if recs := openStore(t, l).Image().ActivationRecords(testNode); len(recs) != 0 {
		t.Fatalf("second take-over wrote %v", recs)
	}
}

func TestActivationLeavesPartitionsItMayNotLead(t *testing.T) {
	topic := UUID{7}
	img := mustReplay(t, EmptyImage(), &TopicRecord{Name: "t", TopicID: topic},
		// Another node leads with this one out of the ISR: electing it would lose writes.
		&PartitionRecord{Version: 2, PartitionID: 0, TopicID: topic, Replicas: []int32{1, 2}, ISR: []int32{2}, Leader: 2},
		// Not a replica here.
		&PartitionRecord{Version: 2, PartitionID: 1, TopicID: topic, Replicas: []int32{2}, ISR: []int32{2}, Leader: 2},
		// In the ISR but another leader (multi-node log): take it.
		&PartitionRecord{Version: 2, PartitionID: 2, TopicID: topic, Replicas: []int32{2, 1}, ISR: []int32{2, 1}, Leader: 2},
	)
	recs := img.ActivationRecords(testNode)
	if len(recs) != 2 {
		t.Fatalf("records %v", recs)
	}
	if _, ok := recs[0].(*RegisterBrokerRecord); !ok {
		t.Fatalf("first record %+v, want the registration", recs[0])
	}
	c, _ := recs[1].(*PartitionChangeRecord)
	if c == nil || c.PartitionID != 2 || c.Leader != 1 || c.ISR != nil {
		t.Fatalf("change %+v", recs[0])
	}
	// Round trip through the wire form, as the log stores it.
	if _, err := Decode(Encode(c)); err != nil {
		t.Fatal(err)
	}
}
