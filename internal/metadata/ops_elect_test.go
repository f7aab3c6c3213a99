package metadata

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// electionImage: node 1 registered; topic "t" with partitions in the
// states an election distinguishes.
func electionImage(t *testing.T) *Image {
	t.Helper()
	topic := UUID{5}
	return mustReplay(t, EmptyImage(),
		&RegisterBrokerRecord{Version: 3, BrokerID: 1, BrokerEpoch: SingleNodeBrokerEpoch},
		&TopicRecord{Name: "t", TopicID: topic},
		// 0: the preferred replica leads.
		&PartitionRecord{Version: 2, PartitionID: 0, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1},
		// 1: no leader, this node in the ISR.
		&PartitionRecord{Version: 2, PartitionID: 1, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: -1},
		// 2: no leader, ISR empty and this node not in the ELR: only an unclean election.
		&PartitionRecord{Version: 2, PartitionID: 2, TopicID: topic, Replicas: []int32{1}, ISR: []int32{}, Leader: -1},
		// 3: the preferred replica is broker 2, which is not registered; node 1 leads.
		&PartitionRecord{Version: 2, PartitionID: 3, TopicID: topic, Replicas: []int32{2, 1}, ISR: []int32{2, 1}, Leader: 1},
		// 4: no leader and no live replica.
		&PartitionRecord{Version: 2, PartitionID: 4, TopicID: topic, Replicas: []int32{2}, ISR: []int32{2}, Leader: -1},
		// 5: broker 2 leads, this node out of the ISR.
		&PartitionRecord{Version: 2, PartitionID: 5, TopicID: topic, Replicas: []int32{2, 1}, ISR: []int32{2}, Leader: 2},
	)
}

func TestElectLeaderPreferred(t *testing.T) {
	img := electionImage(t)
	_, err := img.ElectLeader(testNode, "t", 0, false)
	wantCode(t, err, kerr.ElectionNotNeeded, "")
	_, err = img.ElectLeader(testNode, "t", 3, false)
	wantCode(t, err, kerr.PreferredLeaderNotAvailable, "")
	_, err = img.ElectLeader(testNode, "t", 2, false)
	wantCode(t, err, kerr.PreferredLeaderNotAvailable, "") // not in the ISR
	_, err = img.ElectLeader(testNode, "t", 9, false)
	wantCode(t, err, kerr.UnknownTopicOrPartition, "No such partition as t-9")
	_, err = img.ElectLeader(testNode, "nope", 0, false)
	wantCode(t, err, kerr.UnknownTopicOrPartition, "No such topic as nope")

	recs, err := img.ElectLeader(testNode, "t", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	next := mustReplay(t, img, recs...)
	p, _ := mustTopic(t, next, "t").Partition(1)
	if p.Leader != 1 || p.LeaderEpoch != 1 || p.LeaderRecoveryState != 0 {
		t.Fatalf("after a preferred election: %+v", p)
	}
	_, err = next.ElectLeader(testNode, "t", 1, false)
	wantCode(t, err, kerr.ElectionNotNeeded, "")
}

func TestElectLeaderUnclean(t *testing.T) {
	img := electionImage(t)
	for _, p := range []int32{0, 3} {
		_, err := img.ElectLeader(testNode, "t", p, true)
		wantCode(t, err, kerr.ElectionNotNeeded, "")
	}
	_, err := img.ElectLeader(testNode, "t", 4, true)
	wantCode(t, err, kerr.EligibleLeadersNotAvailable, "")

	recs, err := img.ElectLeader(testNode, "t", 1, true) // clean: from the ISR
	if err != nil {
		t.Fatal(err)
	}
	next := mustReplay(t, img, recs...)
	if p, _ := mustTopic(t, next, "t").Partition(1); p.Leader != 1 || p.LeaderRecoveryState != 0 {
		t.Fatalf("after an election from the ISR: %+v", p)
	}
	recs, err = img.ElectLeader(testNode, "t", 2, true) // unclean: out of the ISR
	if err != nil {
		t.Fatal(err)
	}
	next = mustReplay(t, img, recs...)
	p, _ := mustTopic(t, next, "t").Partition(2)
	if p.Leader != 1 || !slices.Equal(p.ISR, []int32{1}) || p.LeaderRecoveryState != LeaderRecovering {
		t.Fatalf("after an unclean election: %+v", p)
	}
}

func TestUnregisterBroker(t *testing.T) {
	img := electionImage(t)
	_, err := img.UnregisterBroker(7)
	wantCode(t, err, kerr.BrokerIDNotRegistered, "Broker ID 7 is not currently registered")
	recs, err := img.UnregisterBroker(1)
	if err != nil {
		t.Fatal(err)
	}
	next := mustReplay(t, img, recs...)
	if _, ok := next.Broker(1); ok {
		t.Fatal("broker 1 still registered")
	}
	_, err = next.UnregisterBroker(1)
	wantCode(t, err, kerr.BrokerIDNotRegistered, "Broker ID 1 is not currently registered")
	// Kafka takes the broker out of every ISR that has it; without ELR the
	// last member stays, and the partitions it led have no leader.
	wantPartitions := map[int32]struct {
		leader int32
		isr    []int32
	}{0: {-1, []int32{1}}, 1: {-1, []int32{1}}, 2: {-1, []int32{}}, 3: {-1, []int32{2}}, 4: {-1, []int32{2}}, 5: {2, []int32{2}}}
	for id, w := range wantPartitions {
		p, _ := mustTopic(t, next, "t").Partition(id)
		if p.Leader != w.leader || !slices.Equal(p.ISR, w.isr) {
			t.Errorf("partition %d after unregistering: leader %d isr %v, want %d %v", id, p.Leader, p.ISR, w.leader, w.isr)
		}
	}
	if _, ok := recs[len(recs)-1].(*UnregisterBrokerRecord); !ok || len(recs) != 4 {
		t.Fatalf("records %+v", recs)
	}
}

// As Kafka 4.4.0 wrote for a broker unregistering itself with ELR on:
// ISR [], leader -1, ELR and last known ELR [1]; the next start may elect
// it again without losing writes.
func TestUnregisterBrokerWithELR(t *testing.T) {
	img := mustReplay(t, electionImage(t),
		&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MaxMetadataVersion},
		&FeatureLevelRecord{Name: FeatureELR, FeatureLevel: 1})
	recs, err := img.UnregisterBroker(1)
	if err != nil {
		t.Fatal(err)
	}
	c := recs[0].(*PartitionChangeRecord)
	if c.Leader != -1 || !slices.Equal(c.ISR, []int32{}) || !slices.Equal(c.EligibleLeaderReplicas, []int32{1}) || !slices.Equal(c.LastKnownELR, []int32{1}) {
		t.Fatalf("change %+v", c)
	}
	next := mustReplay(t, img, recs...)
	p, _ := mustTopic(t, next, "t").Partition(0)
	if p.Leader != -1 || len(p.ISR) != 0 || !slices.Equal(p.EligibleLeaderReplicas, []int32{1}) || p.LeaderEpoch != 1 {
		t.Fatalf("partition 0 %+v", p)
	}
	if act := next.ActivationRecords(Node{ID: 1}); len(act) < 2 {
		t.Fatalf("a restart does not register and elect again: %+v", act)
	}
}

// Kafka 4.4 elects the last known leader of a partition whose ISR and ELR
// are empty (after an unclean shutdown cleared the ELR) uncleanly: ISR the
// leader alone, RECOVERING, last known ELR cleared; and writes no state
// when the partition is RECOVERING already. Measured on Kafka 4.4.0 (one
// node, kill -9 and restart): {"isr":[1],"leader":1,"leaderRecoveryState":1,
// "lastKnownElr":[]}, then after a second kill -9 {"isr":[1],"leader":1,
// "lastKnownElr":[]}. The same goes for the operator's elections, preferred
// and unclean, and for this node's own election at start. Until 2026-12-02
// Karst counted it clean (no RECOVERING).
func TestElectingTheLastKnownLeaderIsUnclean(t *testing.T) {
	topic := UUID{6}
	leaderless := func(state int8) *Image {
		return mustReplay(t, EmptyImage(),
			&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MaxMetadataVersion},
			&FeatureLevelRecord{Name: FeatureELR, FeatureLevel: 1},
			&RegisterBrokerRecord{Version: 3, BrokerID: 1, BrokerEpoch: SingleNodeBrokerEpoch},
			&TopicRecord{Name: "t", TopicID: topic},
			&PartitionRecord{Version: 2, PartitionID: 0, TopicID: topic, Replicas: []int32{1}, ISR: []int32{}, Leader: -1,
				LastKnownELR: []int32{1}, LeaderRecoveryState: state})
	}
	want := func(how string, state int8, recs []Record) {
		t.Helper()
		var c *PartitionChangeRecord
		for _, r := range recs {
			if pc, ok := r.(*PartitionChangeRecord); ok {
				c = pc
			}
		}
		if c == nil || c.Leader != 1 || !slices.Equal(c.ISR, []int32{1}) || c.LeaderRecoveryState != state ||
			c.LastKnownELR == nil || len(c.LastKnownELR) != 0 || c.EligibleLeaderReplicas != nil {
			t.Fatalf("%s: %+v, want leader 1, ISR [1], recovery state %d, last known ELR [] and no ELR", how, c, state)
		}
	}
	for _, unclean := range []bool{false, true} {
		recs, err := leaderless(LeaderRecovered).ElectLeader(testNode, "t", 0, unclean)
		if err != nil {
			t.Fatalf("unclean %v: %v", unclean, err)
		}
		want(fmt.Sprintf("ElectLeaders (unclean %v)", unclean), LeaderRecovering, recs)
		next := mustReplay(t, leaderless(LeaderRecovered), recs...)
		if p, _ := mustTopic(t, next, "t").Partition(0); p.LeaderRecoveryState != LeaderRecovering {
			t.Fatalf("after the election: %+v", p)
		}
	}
	want("a start", LeaderRecovering, leaderless(LeaderRecovered).ActivationRecords(testNode))
	want("a start while RECOVERING", noRecoveryChange, leaderless(LeaderRecovering).ActivationRecords(testNode))

	// From the ELR (a clean stop left it there) the election is clean.
	img := mustReplay(t, leaderless(LeaderRecovered), &PartitionChangeRecord{TopicID: topic, PartitionID: 0, Leader: NoLeaderChange,
		EligibleLeaderReplicas: []int32{1}, LeaderRecoveryState: noRecoveryChange})
	recs, err := img.ElectLeader(testNode, "t", 0, true)
	if err != nil {
		t.Fatal(err)
	}
	c := recs[0].(*PartitionChangeRecord)
	if c.Leader != 1 || !slices.Equal(c.ISR, []int32{1}) || c.LeaderRecoveryState != noRecoveryChange ||
		!slices.Equal(c.EligibleLeaderReplicas, []int32{}) || c.EligibleLeaderReplicas == nil || !slices.Equal(c.LastKnownELR, []int32{}) {
		t.Fatalf("an election from the ELR: %+v", c)
	}
}
