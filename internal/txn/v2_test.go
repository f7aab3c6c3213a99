package txn

import (
	"math"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func (f *fixture) endV2(id string, pe ProducerIDAndEpoch, commit bool) ProducerIDAndEpoch {
	f.t.Helper()
	out, err := f.c.EndTxnV2(ctx, id, pe.ProducerID, pe.ProducerEpoch, commit)
	if err != nil {
		f.t.Fatalf("end v2 %s: %v", id, err)
	}
	return out
}

func (f *fixture) addV2(id string, pe ProducerIDAndEpoch, tps ...TopicPartition) {
	f.t.Helper()
	if err := f.c.AddPartitionsImplicit(ctx, id, pe.ProducerID, pe.ProducerEpoch, tps); err != nil {
		f.t.Fatalf("implicit add %s: %v", id, err)
	}
}

func TestV2EveryTransactionBumpsTheEpoch(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	f.addV2("a", pe, tp("t", 0), tp("t", 1))
	next := f.endV2("a", pe, true)
	if next.ProducerID != pe.ProducerID || next.ProducerEpoch != pe.ProducerEpoch+1 {
		t.Fatalf("after commit: %+v", next)
	}
	for _, m := range f.markers.take() {
		if m.ProducerEpoch != next.ProducerEpoch || !m.Commit {
			t.Fatalf("marker %+v", m)
		}
	}
	if d := f.state("a"); d.State != CompleteCommit || d.ProducerEpoch != next.ProducerEpoch {
		t.Fatalf("state: %+v", d)
	}
	// A retry of that EndTxn, with the epoch before the bump, succeeds.
	if again := f.endV2("a", pe, true); again != next {
		t.Fatalf("retry: %+v", again)
	}
	_, err := f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch, false)
	wantErr(t, "retry with the other outcome", err, kerr.InvalidTxnState)
	_, err = f.c.EndTxnV2(ctx, "a", next.ProducerID, next.ProducerEpoch, true)
	wantErr(t, "commit with no transaction", err, kerr.InvalidTxnState)
	// The next transaction; the delayed EndTxn of the first cannot end it.
	f.addV2("a", next, tp("t", 0))
	_, err = f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true)
	wantErr(t, "late EndTxn of the earlier transaction", err, kerr.ProducerFenced)
	wantErr(t, "late write of the earlier transaction", f.c.AppendInTransaction("a", pe.ProducerID, pe.ProducerEpoch, tp("t", 0), func() error { return nil }), kerr.InvalidProducerEpoch)
	wantErr(t, "implicit add with the old epoch", f.c.AddPartitionsImplicit(ctx, "a", pe.ProducerID, pe.ProducerEpoch, []TopicPartition{tp("t", 1)}), kerr.ProducerFenced)
	third := f.endV2("a", next, false)
	if third.ProducerEpoch != next.ProducerEpoch+1 {
		t.Fatalf("after abort: %+v", third)
	}
	if got := f.markers.take(); len(got) != 1 || got[0].Commit || got[0].ProducerEpoch != third.ProducerEpoch {
		t.Fatalf("abort markers: %+v", got)
	}
}

func TestV2AbortWithoutTransaction(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	_, err := f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true)
	wantErr(t, "commit from Empty", err, kerr.InvalidTxnState)
	_, err = f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch+1, false)
	wantErr(t, "abort from Empty with another epoch", err, kerr.ProducerFenced)
	next := f.endV2("a", pe, false)
	if next.ProducerEpoch != pe.ProducerEpoch+1 {
		t.Fatalf("abort from Empty: %+v", next)
	}
	if d := f.state("a"); d.State != CompleteAbort || len(d.Partitions) != 0 {
		t.Fatalf("state: %+v", d)
	}
	if got := f.markers.take(); len(got) != 0 {
		t.Fatalf("markers: %+v", got)
	}
	// Abort again with the current epoch: another bump; with the old one: a retry.
	if again := f.endV2("a", pe, false); again != next {
		t.Fatalf("retry: %+v", again)
	}
	if bumped := f.endV2("a", next, false); bumped.ProducerEpoch != next.ProducerEpoch+1 {
		t.Fatalf("second abort: %+v", bumped)
	}
	// Prepared states ask every EndTxn to wait, as Kafka since KAFKA-18464.
	cur := ProducerIDAndEpoch{pe.ProducerID, pe.ProducerEpoch + 2}
	f.addV2("a", cur, tp("t", 0))
	f.q.setHold(true)
	done := f.endV2("a", cur, true)
	_, err = f.c.EndTxnV2(ctx, "a", cur.ProducerID, cur.ProducerEpoch, true)
	wantErr(t, "retry while committing", err, kerr.ConcurrentTransactions)
	_, err = f.c.EndTxnV2(ctx, "a", cur.ProducerID, cur.ProducerEpoch, false)
	wantErr(t, "abort while committing", err, kerr.ConcurrentTransactions)
	_, err = f.c.EndTxnV2(ctx, "a", done.ProducerID, done.ProducerEpoch, true)
	wantErr(t, "new epoch while committing", err, kerr.ConcurrentTransactions)
	f.q.setHold(false)
	f.q.run()
	_, err = f.c.EndTxnV2(ctx, "a", cur.ProducerID, cur.ProducerEpoch, false)
	wantErr(t, "retry with the other outcome once committed", err, kerr.InvalidTxnState)
}

func TestV2EpochOverflowMovesToANewProducerID(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	f.setEpoch("a", math.MaxInt16-1)
	pe.ProducerEpoch = math.MaxInt16 - 1
	f.addV2("a", pe, tp("t", 0))
	f.q.setHold(true)
	next := f.endV2("a", pe, true)
	if next.ProducerID == pe.ProducerID || next.ProducerEpoch != 0 {
		t.Fatalf("overflow: %+v", next)
	}
	// A broker restart before the markers keeps the new producer id.
	f.q.work = nil
	f.q.setHold(false)
	f.restart()
	got := f.markers.take()
	if len(got) != 1 || got[0].ProducerID != pe.ProducerID || got[0].ProducerEpoch != math.MaxInt16 {
		t.Fatalf("markers: %+v", got)
	}
	d := f.state("a")
	if d.State != CompleteCommit || d.ProducerID != next.ProducerID || d.ProducerEpoch != 0 {
		t.Fatalf("after overflow: %+v", d)
	}
	if again := f.endV2("a", pe, true); again != next {
		t.Fatalf("retry across the overflow: %+v", again)
	}
	f.addV2("a", next, tp("t", 1))
	if n := f.endV2("a", next, true); n.ProducerID != next.ProducerID || n.ProducerEpoch != 1 {
		t.Fatalf("after the overflow: %+v", n)
	}
}

func TestV2TimedOutTransactionFencesItsProducer(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 1000)
	f.addV2("a", pe, tp("t", 0))
	f.advance(10 * time.Second)
	f.settle()
	if d := f.state("a"); d.State != CompleteAbort || d.ProducerEpoch != pe.ProducerEpoch+2 {
		t.Fatalf("after timeout: %+v", d)
	}
	_, err := f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true)
	wantErr(t, "late commit", err, kerr.ProducerFenced)
	_, err = f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch, false)
	wantErr(t, "late abort", err, kerr.ProducerFenced)
}

func TestV2RecordsAreValueVersion1(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 1000)
	f.addV2("a", pe, tp("t", 0))
	last := f.store.records()[len(f.store.records())-1]
	v, err := DecodeValue(last.Value)
	if err != nil || v.Version != 1 || v.ClientTransactionVersion != 2 || v.State != Ongoing {
		t.Fatalf("v2 record: %+v %v", v, err)
	}
	f.restart()
	if d := f.state("a"); d.State != Ongoing || d.ProducerEpoch != pe.ProducerEpoch {
		t.Fatalf("after restart: %+v", d)
	}
	f.endV2("a", pe, true)
}

func TestV2AddPartitionsWaitsForThePreviousTransaction(t *testing.T) {
	f := newFixture(t)
	f.cfg.AddPartitionsWait = 10 * time.Second
	f.c = f.newCoordinator()
	pe := f.init("a", 60000)
	f.addV2("a", pe, tp("t", 0))
	f.q.setHold(true)
	next := f.endV2("a", pe, true)
	added := make(chan error, 1)
	go func() {
		added <- f.c.AddPartitionsImplicit(ctx, "a", next.ProducerID, next.ProducerEpoch, []TopicPartition{tp("t", 0)})
	}()
	select {
	case err := <-added:
		t.Fatalf("added while the commit was pending: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	f.q.setHold(false)
	f.q.run()
	select {
	case err := <-added:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the add did not go ahead once the commit completed")
	}
	if d := f.state("a"); d.State != Ongoing || d.ProducerEpoch != next.ProducerEpoch {
		t.Fatalf("next transaction: %+v", d)
	}
}

// TestV2EndTxnWhileMarkersAreWrittenIsRetried: a client that got the
// bumped epoch from its commit and at once aborts an empty transaction
// (franz-go does) is told CONCURRENT_TRANSACTIONS while the commit's
// markers are written, not fenced (KAFKA-18464); once they are, the abort
// goes through.
func TestV2EndTxnWhileMarkersAreWrittenIsRetried(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	f.addV2("a", pe, tp("t", 0))
	f.q.setHold(true)
	next, err := f.c.EndTxnV2(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true)
	if err != nil || next.ProducerEpoch != pe.ProducerEpoch+1 {
		t.Fatalf("commit: %+v, %v", next, err)
	}
	if d := f.state("a"); d.State != PrepareCommit {
		t.Fatalf("state while markers are held back: %+v", d)
	}
	_, err = f.c.EndTxnV2(ctx, "a", next.ProducerID, next.ProducerEpoch, false)
	wantErr(t, "abort with the new epoch while markers are written", err, kerr.ConcurrentTransactions)
	_, err = f.c.EndTxnV2(ctx, "a", next.ProducerID, next.ProducerEpoch, true)
	wantErr(t, "commit with the new epoch while markers are written", err, kerr.ConcurrentTransactions)
	f.q.setHold(false)
	f.q.run()
	if d := f.state("a"); d.State != CompleteCommit {
		t.Fatalf("state after the markers: %+v", d)
	}
	if after := f.endV2("a", next, false); after.ProducerEpoch != next.ProducerEpoch+1 {
		t.Fatalf("empty abort after the commit completed: %+v", after)
	}
}
