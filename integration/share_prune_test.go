package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestSharePruneAndRestart: with a snapshot every update and a short
// prune interval, the share coordinator moves the log start offset of
// __share_group_state on as acknowledgements come in, and a broker
// restarted on what is left keeps every acknowledgement.
func TestSharePruneAndRestart(t *testing.T) {
	dir := t.TempDir()
	opts := []karsttest.Option{karsttest.WithConfig("log.dirs", dir),
		karsttest.WithConfig("share.coordinator.state.topic.num.partitions", "1"),
		karsttest.WithConfig("share.coordinator.snapshot.update.records.per.snapshot", "1"),
		karsttest.WithConfig("share.coordinator.state.topic.prune.interval.ms", "100")}
	b := karsttest.Start(t, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-prune", 1, 10)
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-9:1"}) {
		t.Fatalf("acquired %v", got)
	}
	// One acknowledgement per request: a state record each.
	for o := int64(0); o < 6; o++ {
		if codes := ackCodes(h.ack("m1", int32(o+1), ackBatch(o, o, ackAccept))); fmt.Sprint(codes) != "[0]" {
			t.Fatalf("acknowledging %d: %v", o, codes)
		}
	}
	adm := kadm.NewClient(h.cl)
	var start, end int64
	for {
		starts, err := adm.ListStartOffsets(ctx, "__share_group_state")
		if err != nil {
			t.Fatal(err)
		}
		ends, err := adm.ListEndOffsets(ctx, "__share_group_state")
		if err != nil {
			t.Fatal(err)
		}
		s, _ := starts.Lookup("__share_group_state", 0)
		e, _ := ends.Lookup("__share_group_state", 0)
		start, end = s.Offset, e.Offset
		// Only the latest snapshot of the one share-partition is needed.
		if start > 0 && start == end-1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("log start offset of __share_group_state %d, end %d: want everything but the latest snapshot pruned", start, end)
		case <-time.After(50 * time.Millisecond):
		}
	}
	// Kafka creates the topic for pruning, not compaction.
	rcs, err := adm.DescribeTopicConfigs(ctx, "__share_group_state")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On("__share_group_state", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rc.Configs {
		got[c.Key] = c.MaybeValue()
	}
	if got["cleanup.policy"] != "delete" || got["retention.ms"] != "-1" {
		t.Fatalf("__share_group_state: cleanup.policy %q, retention.ms %q; want delete and -1", got["cleanup.policy"], got["retention.ms"])
	}
	h.cl.Close()
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	b = karsttest.Start(t, opts...)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	h.cl = cl
	// 0-5 were accepted; 6-9, released when m1's session ended, come
	// again with delivery count 2.
	if got := acquired(t, h.fetch("m2", 0, 5*time.Second)); !sameStrings(got, []string{"6-9:2"}) {
		t.Fatalf("after pruning and a restart acquired %v", got)
	}
}
