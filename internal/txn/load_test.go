package txn

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Each test stops the broker at one phase of a transaction and checks
// what a restarted coordinator makes of __transaction_state.

func TestRestartAfterInit(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 5000)
	f.restart()
	if d := f.state("a"); d.State != Empty || d.ProducerID != pe.ProducerID || d.ProducerEpoch != 0 || d.TimeoutMs != 5000 {
		t.Fatalf("after restart: %+v", d)
	}
	if pe2 := f.init("a", 5000); pe2.ProducerID != pe.ProducerID || pe2.ProducerEpoch != 1 {
		t.Fatalf("init after restart: %+v", pe2)
	}
}

func TestRestartWithOpenTransactionAbortsItAtTimeout(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 30000)
	f.add("a", pe, tp("t", 0), tp("t", 1))
	start := f.state("a").StartMs
	f.restart()
	d := f.state("a")
	if d.State != Ongoing || d.StartMs != start || len(d.Partitions) != 2 {
		t.Fatalf("after restart: %+v", d)
	}
	// The producer may carry on...
	f.add("a", pe, tp("t", 2))
	// ...but not past its timeout.
	f.advance(30 * time.Second)
	f.settle()
	if d := f.state("a"); d.State != CompleteAbort || d.ProducerEpoch != pe.ProducerEpoch+1 {
		t.Fatalf("after the timeout: %+v", d)
	}
	if got := f.markers.take(); len(got) != 3 {
		t.Fatalf("abort markers: %+v", got)
	}
}

func TestRestartWhilePreparedCompletesTheTransaction(t *testing.T) {
	for _, commit := range []bool{true, false} {
		f := newFixture(t)
		pe := f.init("a", 30000)
		f.add("a", pe, tp("t", 0), tp("__consumer_offsets", 3))
		f.q.setHold(true)
		f.end("a", pe, commit)
		f.q.drop() // the broker dies before writing any marker
		f.q.setHold(false)
		f.restart()
		want := CompleteAbort
		if commit {
			want = CompleteCommit
		}
		if d := f.state("a"); d.State != want {
			t.Fatalf("commit=%v: after restart: %+v", commit, d)
		}
		got := f.markers.take()
		if len(got) != 2 || got[0].Commit != commit || got[1].Commit != commit {
			t.Fatalf("commit=%v: markers: %+v", commit, got)
		}
		if len(f.offsets) != 1 || f.offsets[0].commit != commit {
			t.Fatalf("commit=%v: group told: %+v", commit, f.offsets)
		}
		// The producer's retry of EndTxn succeeds.
		f.end("a", pe, commit)
	}
}

func TestRestartAfterMarkersBeforeComplete(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 30000)
	f.add("a", pe, tp("t", 0))
	f.q.setHold(true)
	f.end("a", pe, true)
	f.store.fail(errors.New("disk full")) // the Complete write fails
	f.q.setHold(false)
	f.q.run()
	f.store.fail(nil)
	if d := f.state("a"); d.State != PrepareCommit {
		t.Fatalf("before restart: %+v", d)
	}
	if got := f.markers.take(); len(got) != 1 {
		t.Fatalf("markers: %+v", got)
	}
	f.restart()
	if d := f.state("a"); d.State != CompleteCommit {
		t.Fatalf("after restart: %+v", d)
	}
	// Writing the marker twice is what Kafka does too.
	if got := f.markers.take(); len(got) != 1 || !got[0].Commit {
		t.Fatalf("markers after restart: %+v", got)
	}
}

func TestRestartAfterComplete(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 30000)
	f.add("a", pe, tp("t", 0))
	f.end("a", pe, false)
	f.markers.take()
	f.restart()
	if d := f.state("a"); d.State != CompleteAbort || len(d.Partitions) != 0 {
		t.Fatalf("after restart: %+v", d)
	}
	if got := f.markers.take(); len(got) != 0 {
		t.Fatalf("markers rewritten: %+v", got)
	}
	wantErr(t, "commit after abort", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true), kerr.InvalidTxnState)
}

func TestLoadSkipsMalformedRecords(t *testing.T) {
	f := newFixture(t)
	f.init("a", 1000)
	f.store.append(f.c.PartitionFor("b"), coordinator.Record{Key: []byte{0, 0, 0}, Value: []byte{1}},
		coordinator.Record{Key: EncodeKey("b"), Value: []byte{0, 9}})
	f.init("c", 1000)
	c := f.newCoordinator()
	skipped, err := c.Load()
	if err != nil || skipped != 2 {
		t.Fatalf("load: %d skipped, %v", skipped, err)
	}
	if _, err := c.Describe("c"); err != nil {
		t.Fatalf("c: %v", err)
	}
}
