package node

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/metadata"
)

// A partition left with an empty ISR and ELR and this node as its last
// known leader (what Kafka 4.4's controller leaves after an unclean
// shutdown) is led again by this node through an unclean election, as
// Kafka 4.4.0 does: at start, and through franz-go's ElectLeaders, the
// partition is marked RECOVERING, and keeps its records. Until 2026-12-02
// both elections were recorded clean.
func TestTheLastKnownLeaderIsElectedUncleanly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "a")
	n, cl := startOnDirs(t, newErrorMessages(), dir)
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "jbod"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Value: []byte("kept")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	leaveToTheLastKnownLeader(t, n)
	stopTestNode(t, n, cl)

	n, cl = startOnDirs(t, newErrorMessages(), dir)
	if p := partitionState(t, n, 0); p.Leader != 1 || p.LeaderRecoveryState != metadata.LeaderRecovering {
		t.Fatalf("after a start: %+v, want led by 1 and RECOVERING", p)
	}

	leaveToTheLastKnownLeader(t, n)
	epoch := partitionState(t, n, 0).LeaderEpoch
	res, err := kadm.NewClient(cl).ElectLeaders(ctx, kadm.ElectLiveReplica, kadm.TopicsSet{"jbod": {0: {}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res["jbod"][0]; r.Err != nil {
		t.Fatalf("ElectLeaders: %+v", r)
	}
	if p := partitionState(t, n, 0); p.Leader != 1 || p.LeaderEpoch != epoch+1 || p.LeaderRecoveryState != metadata.LeaderRecovering {
		t.Fatalf("after ElectLeaders: %+v, want led by 1 at epoch %d, RECOVERING", p, epoch+1)
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "jbod")
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := ends.Lookup("jbod", 0); end.Err != nil || end.Offset != 1 {
		t.Fatalf("end offset %+v, want 1", end)
	}
}

// leaveToTheLastKnownLeader commits what Kafka's controller writes for an
// unclean shutdown of the only replica: no leader, ISR and ELR empty, this
// node the last known leader.
func leaveToTheLastKnownLeader(t *testing.T, n *Node) {
	t.Helper()
	topic, _ := n.store.Image().Topic("jbod")
	c := metadata.NewPartitionChangeRecord(metadata.MaxMetadataVersion, topic.ID, 0)
	c.Leader, c.ISR, c.EligibleLeaderReplicas, c.LastKnownELR = metadata.NoLeader, []int32{}, []int32{}, []int32{1}
	if err := n.store.Commit([]metadata.Record{c}); err != nil {
		t.Fatal(err)
	}
	if p := partitionState(t, n, 0); p.Leader != -1 || len(p.ISR) != 0 || len(p.EligibleLeaderReplicas) != 0 {
		t.Fatalf("the partition was not left leaderless: %+v", p)
	}
}
