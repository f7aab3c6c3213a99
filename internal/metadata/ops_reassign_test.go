package metadata

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestReassignPartitionValidation(t *testing.T) {
	img := electionImage(t)
	for _, c := range []struct {
		target []int32
		code   *kerr.Error
		msg    string
	}{
		{[]int32{}, kerr.InvalidReplicaAssignment, "The manual partition assignment includes an empty replica list."},
		{[]int32{1, 2}, kerr.InvalidReplicaAssignment, "The manual partition assignment includes broker 2, but no such broker is registered."},
		{[]int32{1, 1}, kerr.InvalidReplicaAssignment, "The manual partition assignment includes the broker 1 more than once."},
	} {
		_, err := img.ReassignPartition("t", 0, c.target, true)
		wantCode(t, err, c.code, c.msg)
	}
	_, err := img.ReassignPartition("nope", 0, []int32{1}, true)
	wantCode(t, err, kerr.UnknownTopicOrPartition, "Unable to find a topic named nope.")
	_, err = img.ReassignPartition("t", 9, []int32{1}, true)
	wantCode(t, err, kerr.UnknownTopicOrPartition, "Unable to find partition t:9.")
	// The replicas it has: done, nothing to write.
	if recs, err := img.ReassignPartition("t", 0, []int32{1}, false); err != nil || len(recs) != 0 {
		t.Fatalf("same replicas: %v %v", recs, err)
	}
	// Partition 3 has replicas [2 1]: shrinking to [1] changes the factor.
	_, err = img.ReassignPartition("t", 3, []int32{1}, false)
	wantCode(t, err, kerr.InvalidReplicationFactor, "The replication factor is changed from 2 to 1")
	// Partition 5 has node 1 out of the ISR: it would need a copy of the data.
	_, err = img.ReassignPartition("t", 5, []int32{1}, true)
	wantCode(t, err, kerr.InvalidReplicaAssignment, "not in the ISR")
}

func TestReassignPartitionDropsAReplica(t *testing.T) {
	img := electionImage(t)
	recs, err := img.ReassignPartition("t", 3, []int32{1}, true)
	if err != nil {
		t.Fatal(err)
	}
	next := mustReplay(t, img, recs...)
	p, _ := mustTopic(t, next, "t").Partition(3)
	if !slices.Equal(p.Replicas, []int32{1}) || !slices.Equal(p.ISR, []int32{1}) || p.Leader != 1 || p.ReassignmentInProgress() {
		t.Fatalf("after the reassignment: %+v", p)
	}
}

func TestCancelReassignment(t *testing.T) {
	img := electionImage(t)
	wantCode(t, img.CancelReassignment("t", 0), kerr.NoReassignmentInProgress, "")
	wantCode(t, img.CancelReassignment("t", 7), kerr.UnknownTopicOrPartition, "Unable to find partition t:7.")
	topic := mustTopic(t, img, "t")
	if got := topic.Reassignments(nil); len(got) != 0 {
		t.Fatalf("reassignments %v", got)
	}
	c := NewPartitionChangeRecord(MaxMetadataVersion, topic.ID, 0)
	c.Replicas, c.AddingReplicas = []int32{1, 2}, []int32{2}
	next := mustReplay(t, img, c)
	if got := mustTopic(t, next, "t").Reassignments([]int32{0, 1, 8}); len(got) != 1 || got[0].ID != 0 {
		t.Fatalf("reassignments %v", got)
	}
	wantCode(t, next.CancelReassignment("t", 0), kerr.InvalidReplicaAssignment, "does not revert")
}
