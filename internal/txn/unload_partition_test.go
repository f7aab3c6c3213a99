package txn

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestPartitionMovesAwayAndBack unloads the partition of an open
// transaction, as when its leadership moves, and loads it again: its ids
// answer NOT_COORDINATOR meanwhile, and afterwards the producer carries
// on where it was, its timeout still counted.
func TestPartitionMovesAwayAndBack(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 10000)
	f.add("a", pe, tp("t", 0))
	p := f.c.PartitionFor("a")

	f.c.UnloadPartition(p)
	wantErr(t, "add while unloaded", f.c.AddPartitions(ctx, "a", pe.ProducerID, pe.ProducerEpoch, []TopicPartition{tp("t", 1)}), kerr.NotCoordinator)
	if _, err := f.c.Describe("a"); err != kerr.NotCoordinator {
		t.Fatalf("describe while unloaded: %v", err)
	}
	f.advance(5 * time.Second)
	if f.clock.Pending() != 0 {
		t.Fatalf("%d timers left by the unloaded partition", f.clock.Pending())
	}

	if err := f.c.LoadPartition(p); err != nil {
		t.Fatal(err)
	}
	if d := f.state("a"); d.State != Ongoing || len(d.Partitions) != 1 || d.ProducerEpoch != pe.ProducerEpoch {
		t.Fatalf("after reload: %+v", d)
	}
	f.add("a", pe, tp("t", 1))
	f.advance(5 * time.Second) // 10 s since the transaction began
	if d := f.state("a"); d.State != CompleteAbort || d.ProducerEpoch != pe.ProducerEpoch+1 {
		t.Fatalf("timeout after reload: %+v", d)
	}
	if got := f.markers.take(); len(got) != 2 {
		t.Fatalf("abort markers: %+v", got)
	}
}
