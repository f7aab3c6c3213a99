package txn

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestInitProducerIDNewAndReinit(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	if pe.ProducerID != 1000 || pe.ProducerEpoch != 0 {
		t.Fatalf("first init: %+v", pe)
	}
	if d := f.state("a"); d.State != Empty || d.TimeoutMs != 60000 || d.StartMs != -1 {
		t.Fatalf("after init: %+v", d)
	}
	pe2 := f.init("a", 30000)
	if pe2.ProducerID != 1000 || pe2.ProducerEpoch != 1 {
		t.Fatalf("re-init: %+v", pe2)
	}
	if other := f.init("b", 1000); other.ProducerID == pe.ProducerID {
		t.Fatalf("two transactional ids share producer id %d", other.ProducerID)
	}
	// The old instance is fenced everywhere.
	wantErr(t, "add with the old epoch", f.c.AddPartitions(ctx, "a", 1000, 0, []TopicPartition{tp("t", 0)}), kerr.ProducerFenced)
	wantErr(t, "end with the old epoch", f.c.EndTxn(ctx, "a", 1000, 0, true), kerr.ProducerFenced)
}

func TestInitProducerIDRefusals(t *testing.T) {
	f := newFixture(t)
	_, err := f.c.InitProducerID(ctx, InitRequest{TransactionalID: "", TimeoutMs: 1000, ProducerID: -1, ProducerEpoch: -1})
	wantErr(t, "empty id", err, kerr.InvalidRequest)
	_, err = f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 900001, ProducerID: -1, ProducerEpoch: -1})
	wantErr(t, "timeout over transaction.max.timeout.ms", err, kerr.InvalidTransactionTimeout)
	_, err = f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 0, ProducerID: -1, ProducerEpoch: -1})
	wantErr(t, "zero timeout", err, kerr.InvalidTransactionTimeout)
	_, err = f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 1000, ProducerID: 5, ProducerEpoch: -1})
	wantErr(t, "producer id without epoch", err, kerr.InvalidRequest)
	if pe := f.init("a", 900000); pe.ProducerEpoch != 0 {
		t.Fatalf("max timeout: %+v", pe)
	}
}

func TestInitProducerIDWithProducerIDAndEpoch(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 1000)
	req := InitRequest{TransactionalID: "a", TimeoutMs: 1000, ProducerID: pe.ProducerID, ProducerEpoch: pe.ProducerEpoch}
	bumped, err := f.c.InitProducerID(ctx, req)
	if err != nil || bumped.ProducerEpoch != 1 {
		t.Fatalf("KIP-360 bump: %+v %v", bumped, err)
	}
	// A retry of the same call (its answer lost) gets the same epoch.
	again, err := f.c.InitProducerID(ctx, req)
	if err != nil || again != bumped {
		t.Fatalf("retry: %+v %v", again, err)
	}
	// Another producer bumps without an epoch; the first is then fenced.
	f.init("a", 1000)
	_, err = f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 1000, ProducerID: pe.ProducerID, ProducerEpoch: 1})
	wantErr(t, "stale epoch", err, kerr.ProducerFenced)
	_, err = f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 1000, ProducerID: 99, ProducerEpoch: 0})
	wantErr(t, "other producer id", err, kerr.ProducerFenced)
}

func TestEpochExhaustionRotatesProducerID(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 1000)
	f.setEpoch("a", math.MaxInt16-1)
	rotated := f.init("a", 1000)
	if rotated.ProducerID == pe.ProducerID || rotated.ProducerEpoch != 0 {
		t.Fatalf("rotation: %+v from %+v", rotated, pe)
	}
	// A KIP-360 retry with the old producer id and exhausted epoch is
	// accepted (not fenced).
	f.setEpoch("a", math.MaxInt16-1)
	again, err := f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 1000,
		ProducerID: rotated.ProducerID, ProducerEpoch: math.MaxInt16 - 1})
	if err != nil || again.ProducerID == rotated.ProducerID || again.ProducerEpoch != 0 {
		t.Fatalf("second rotation: %+v %v", again, err)
	}
}

func TestCommitWritesMarkersThenComplete(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	wantErr(t, "end without a transaction", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true), kerr.InvalidTxnState)
	f.advance(time.Second)
	f.add("a", pe, tp("t", 0), tp("t", 1))
	f.add("a", pe, tp("u", 0))
	d := f.state("a")
	if d.State != Ongoing || d.StartMs != f.clock.Now().UnixMilli() || len(d.Partitions) != 3 {
		t.Fatalf("ongoing: %+v", d)
	}
	f.q.setHold(true)
	f.end("a", pe, true)
	if d := f.state("a"); d.State != PrepareCommit {
		t.Fatalf("after EndTxn: %+v", d)
	}
	// Until the markers are written, the transactional id waits.
	wantErr(t, "add while preparing", f.c.AddPartitions(ctx, "a", pe.ProducerID, pe.ProducerEpoch, []TopicPartition{tp("t", 0)}), kerr.ConcurrentTransactions)
	_, err := f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 1000, ProducerID: -1, ProducerEpoch: -1})
	wantErr(t, "init while preparing", err, kerr.ConcurrentTransactions)
	wantErr(t, "commit again while preparing", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true), kerr.ConcurrentTransactions)
	wantErr(t, "abort while committing", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, false), kerr.InvalidTxnState)
	f.q.setHold(false)
	f.q.run()
	got := f.markers.take()
	if len(got) != 3 {
		t.Fatalf("markers: %+v", got)
	}
	for _, m := range got {
		if !m.Commit || m.ProducerID != pe.ProducerID || m.ProducerEpoch != pe.ProducerEpoch || m.StatePartition != f.c.PartitionFor("a") {
			t.Fatalf("marker: %+v", m)
		}
	}
	if d := f.state("a"); d.State != CompleteCommit || len(d.Partitions) != 0 {
		t.Fatalf("after markers: %+v", d)
	}
	// A retried commit succeeds; an abort of a committed one does not.
	f.end("a", pe, true)
	wantErr(t, "abort after commit", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, false), kerr.InvalidTxnState)
	// The next transaction starts over.
	f.add("a", pe, tp("t", 2))
	if d := f.state("a"); d.State != Ongoing || len(d.Partitions) != 1 {
		t.Fatalf("next transaction: %+v", d)
	}
	f.end("a", pe, false)
	if d := f.state("a"); d.State != CompleteAbort {
		t.Fatalf("after abort: %+v", d)
	}
	f.end("a", pe, false)
	wantErr(t, "commit after abort", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true), kerr.InvalidTxnState)
	if got := f.markers.take(); len(got) != 1 || got[0].Commit || got[0].TopicPartition != tp("t", 2) {
		t.Fatalf("abort markers: %+v", got)
	}
}

func TestAddPartitionsRefusals(t *testing.T) {
	f := newFixture(t)
	wantErr(t, "unknown id", f.c.AddPartitions(ctx, "a", 1, 0, nil), kerr.InvalidProducerIDMapping)
	wantErr(t, "empty id", f.c.AddPartitions(ctx, "", 1, 0, nil), kerr.InvalidRequest)
	pe := f.init("a", 1000)
	wantErr(t, "other producer id", f.c.AddPartitions(ctx, "a", pe.ProducerID+1, 0, nil), kerr.InvalidProducerIDMapping)
	wantErr(t, "other epoch", f.c.AddPartitions(ctx, "a", pe.ProducerID, 3, nil), kerr.ProducerFenced)
	wantErr(t, "end: other producer id", f.c.EndTxn(ctx, "a", pe.ProducerID+1, 0, true), kerr.InvalidProducerIDMapping)
	wantErr(t, "end: unknown id", f.c.EndTxn(ctx, "zz", pe.ProducerID, 0, true), kerr.InvalidProducerIDMapping)
	wantErr(t, "end: empty id", f.c.EndTxn(ctx, "", pe.ProducerID, 0, true), kerr.InvalidRequest)
	f.add("a", pe, tp("t", 0))
	n := len(f.store.records())
	f.add("a", pe, tp("t", 0))
	if len(f.store.records()) != n {
		t.Fatal("adding partitions already in the transaction wrote a record")
	}
	f.store.fail(errors.New("disk gone"))
	wantErr(t, "store failure", f.c.AddPartitions(ctx, "a", pe.ProducerID, pe.ProducerEpoch, []TopicPartition{tp("t", 1)}), kerr.CoordinatorNotAvailable)
	if d := f.state("a"); len(d.Partitions) != 1 {
		t.Fatalf("a failed write changed the state: %+v", d)
	}
}

func TestInitAbortsOngoingTransaction(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	f.add("a", pe, tp("t", 0))
	f.q.setHold(true)
	_, err := f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 60000, ProducerID: -1, ProducerEpoch: -1})
	wantErr(t, "init over an open transaction", err, kerr.ConcurrentTransactions)
	if d := f.state("a"); d.State != PrepareAbort || d.ProducerEpoch != 1 {
		t.Fatalf("fenced: %+v", d)
	}
	_, err = f.c.InitProducerID(ctx, InitRequest{TransactionalID: "a", TimeoutMs: 60000, ProducerID: -1, ProducerEpoch: -1})
	wantErr(t, "init while aborting", err, kerr.ConcurrentTransactions)
	wantErr(t, "old producer's commit", f.c.EndTxn(ctx, "a", pe.ProducerID, 0, true), kerr.ProducerFenced)
	f.q.setHold(false)
	f.q.run()
	if got := f.markers.take(); len(got) != 1 || got[0].Commit || got[0].ProducerEpoch != 1 {
		t.Fatalf("abort markers: %+v", got)
	}
	if pe2 := f.init("a", 60000); pe2.ProducerEpoch != 2 {
		t.Fatalf("retried init: %+v", pe2)
	}
}

func TestTimedOutTransactionIsAborted(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 5000)
	f.add("a", pe, tp("t", 0))
	f.advance(4 * time.Second)
	f.settle()
	f.advance(6 * time.Second) // the abort scan is every 10 s
	f.settle()
	if d := f.state("a"); d.State != CompleteAbort || d.ProducerEpoch != 1 {
		t.Fatalf("after timeout: %+v", d)
	}
	if got := f.markers.take(); len(got) != 1 || got[0].Commit || got[0].ProducerEpoch != 1 {
		t.Fatalf("markers: %+v", got)
	}
	// The abandoned producer is fenced.
	wantErr(t, "commit after the timeout", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true), kerr.ProducerFenced)
	wantErr(t, "add after the timeout", f.c.AddPartitions(ctx, "a", pe.ProducerID, pe.ProducerEpoch, nil), kerr.ProducerFenced)
	// A transaction within its timeout is left alone.
	pe = f.init("b", 60000)
	f.add("b", pe, tp("t", 0))
	f.advance(10 * time.Second)
	f.settle()
	if d := f.state("b"); d.State != Ongoing {
		t.Fatalf("young transaction: %+v", d)
	}
}

func TestIdleTransactionalIDExpires(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 5000)
	f.add("a", pe, tp("t", 0))
	f.end("a", pe, true)
	f.init("b", 5000)
	pb := f.init("open", 900000)
	f.add("open", pb, tp("t", 0))
	f.advance(7*24*time.Hour - time.Minute)
	f.init("b", 5000) // b is used again
	f.advance(time.Hour)
	f.settle()
	if _, err := f.c.Describe("a"); !errors.Is(err, kerr.TransactionalIDNotFound) {
		t.Fatalf("a not expired: %v", err)
	}
	f.state("b")
	f.state("open") // aborted on its timeout, then kept until it idles
	tombstone := false
	for _, r := range f.store.records() {
		if id, _ := DecodeKey(r.Key); id == "a" {
			tombstone = r.Value == nil
		}
	}
	if !tombstone {
		t.Fatal("no tombstone for a")
	}
	f.restart()
	if _, err := f.c.Describe("a"); !errors.Is(err, kerr.TransactionalIDNotFound) {
		t.Fatalf("a back after a restart: %v", err)
	}
	// A new producer with the expired id starts from a new producer id.
	if pe2 := f.init("a", 1000); pe2.ProducerID == pe.ProducerID {
		t.Fatalf("expired id kept its producer id: %+v", pe2)
	}
}

func TestConsumerOffsetsPartitionCompletesGroupOffsets(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 5000)
	f.add("a", pe, tp("t", 0), tp("__consumer_offsets", 7))
	f.end("a", pe, true)
	if len(f.offsets) != 1 || f.offsets[0] != (completed{pe.ProducerID, pe.ProducerEpoch, true}) {
		t.Fatalf("group told: %+v", f.offsets)
	}
	f.add("a", pe, tp("t", 0))
	f.end("a", pe, false)
	if len(f.offsets) != 1 {
		t.Fatalf("group told about a transaction without offsets: %+v", f.offsets)
	}
	f.add("a", pe, tp("__consumer_offsets", 7))
	f.end("a", pe, false)
	if len(f.offsets) != 2 || f.offsets[1].commit {
		t.Fatalf("abort: %+v", f.offsets)
	}
}

func TestDeletedTopicIsSkippedAndFailedMarkersRetried(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 5000)
	f.add("a", pe, tp("gone", 0), tp("t", 0), tp("moved-on", 0))
	f.markers.gone["gone"] = true
	f.markers.fenced["moved-on"] = true
	f.markers.fail = errors.New("log closed")
	f.end("a", pe, true)
	if d := f.state("a"); d.State != PrepareCommit {
		t.Fatalf("after a failed marker: %+v", d)
	}
	f.markers.fail = nil
	f.settle() // too early to retry
	if d := f.state("a"); d.State != PrepareCommit {
		t.Fatalf("retried at once: %+v", d)
	}
	f.advance(completionRetry)
	f.settle()
	if d := f.state("a"); d.State != CompleteCommit {
		t.Fatalf("after the retry: %+v", d)
	}
	if got := f.markers.take(); len(got) != 1 || got[0].TopicPartition != tp("t", 0) {
		t.Fatalf("markers: %+v", got)
	}
}

func TestVerifyAndAppendInTransaction(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 5000)
	f.add("a", pe, tp("t", 0))
	per, top := f.c.VerifyPartitions("a", pe.ProducerID, pe.ProducerEpoch, []TopicPartition{tp("t", 0), tp("t", 1)})
	if top != nil || per[0] != nil || !errors.Is(per[1], kerr.TransactionAbortable) {
		t.Fatalf("verify: %v %v", per, top)
	}
	_, top = f.c.VerifyPartitions("a", pe.ProducerID, pe.ProducerEpoch+1, []TopicPartition{tp("t", 0)})
	wantErr(t, "verify other epoch", top, kerr.ProducerFenced)
	_, top = f.c.VerifyPartitions("b", pe.ProducerID, pe.ProducerEpoch, nil)
	wantErr(t, "verify unknown id", top, kerr.InvalidProducerIDMapping)
	wrote := 0
	write := func() error { wrote++; return nil }
	if err := f.c.AppendInTransaction("a", pe.ProducerID, pe.ProducerEpoch, tp("t", 0), write); err != nil || wrote != 1 {
		t.Fatalf("append in the transaction: %v", err)
	}
	wantErr(t, "partition outside", f.c.AppendInTransaction("a", pe.ProducerID, pe.ProducerEpoch, tp("t", 1), write), kerr.InvalidTxnState)
	wantErr(t, "old epoch", f.c.AppendInTransaction("a", pe.ProducerID, pe.ProducerEpoch-1, tp("t", 0), write), kerr.InvalidProducerEpoch)
	wantErr(t, "other producer", f.c.AppendInTransaction("a", 1, pe.ProducerEpoch, tp("t", 0), write), kerr.InvalidProducerIDMapping)
	f.q.setHold(true)
	f.end("a", pe, true)
	wantErr(t, "while committing", f.c.AppendInTransaction("a", pe.ProducerID, pe.ProducerEpoch, tp("t", 0), write), kerr.NotEnoughReplicas)
	f.q.setHold(false)
	f.q.run()
	wantErr(t, "after the commit", f.c.AppendInTransaction("a", pe.ProducerID, pe.ProducerEpoch, tp("t", 0), write), kerr.InvalidTxnState)
	if wrote != 1 {
		t.Fatalf("%d writes", wrote)
	}
}

func TestDescribeAndList(t *testing.T) {
	f := newFixture(t)
	pa := f.init("a", 5000)
	f.add("a", pa, tp("u", 1), tp("t", 2), tp("t", 0))
	f.advance(3 * time.Second)
	pb := f.init("b", 5000)
	f.init("c", 5000)
	f.add("b", pb, tp("t", 0))
	d := f.state("a")
	if d.State != Ongoing || !slices.Equal(d.Partitions, []TopicPartition{tp("t", 0), tp("t", 2), tp("u", 1)}) || d.TimeoutMs != 5000 {
		t.Fatalf("describe: %+v", d)
	}
	if _, err := f.c.Describe("zz"); !errors.Is(err, kerr.TransactionalIDNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	ids := func(ls []Listing) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.TransactionalID)
		}
		return out
	}
	all := ListFilter{MinDurationMs: -1}
	if got := ids(f.c.List(all)); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("all: %v", got)
	}
	if got := ids(f.c.List(ListFilter{States: []State{Ongoing}, MinDurationMs: -1})); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("ongoing: %v", got)
	}
	if got := ids(f.c.List(ListFilter{ProducerIDs: []int64{pb.ProducerID}, MinDurationMs: -1})); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("by producer: %v", got)
	}
	if got := ids(f.c.List(ListFilter{States: []State{Ongoing}, MinDurationMs: 2000})); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("running longer than 2 s: %v", got)
	}
}
