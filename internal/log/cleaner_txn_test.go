package log

import (
	"fmt"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

func TestTombstonesGetADeleteHorizonAndGoAfterIt(t *testing.T) {
	l := openTest(t, t.TempDir()+"/t-0", compactConfig())
	defer l.Close()
	mustAppend(t, l, keyedBatch(t, 1, "a", "1", "b", "1"))
	mustAppend(t, l, keyedBatch(t, 2, "a", "")) // tombstone
	mustAppend(t, l, keyedBatch(t, 3, "c", "1"))
	cfg := l.Config()
	cfg.SegmentBytes = 1 // every batch from here rolls
	l.UpdateConfig(cfg)
	mustAppend(t, l, keyedBatch(t, 4, "d", "1"))
	now := time.UnixMilli(1_000_000)
	st := cleanOnce(t, l, -1, now, 1<<20)
	if got, want := fmt.Sprint(surviving(t, l)), "[1:b=1 2:a=<null> 3:c=1 4:d=1]"; got != want {
		t.Fatalf("first clean: got %s want %s", got, want)
	}
	var tomb record.Batch
	for _, b := range readAll(t, l, 0) {
		if b.BaseOffset() == 2 {
			tomb = b
		}
	}
	horizon := now.UnixMilli() + time.Hour.Milliseconds()
	if !tomb.HasDeleteHorizon() || tomb.BaseTimestamp() != horizon || !tomb.ValidCRC() {
		t.Fatalf("tombstone batch: horizon bit %v base timestamp %d (want %d), crc ok %v",
			tomb.HasDeleteHorizon(), tomb.BaseTimestamp(), horizon, tomb.ValidCRC())
	}
	// Before the horizon a later pass keeps it; after it, it goes.
	cleanOnce(t, l, -1, now.Add(30*time.Minute), 1<<20)
	if got := fmt.Sprint(surviving(t, l)); got != "[1:b=1 2:a=<null> 3:c=1 4:d=1]" {
		t.Fatalf("before the horizon: %s", got)
	}
	cleanOnce(t, l, -1, now.Add(2*time.Hour), 1<<20)
	if got, want := fmt.Sprint(surviving(t, l)), "[1:b=1 3:c=1 4:d=1]"; got != want {
		t.Fatalf("after the horizon: got %s want %s", got, want)
	}
	_ = st
}

func txnKeyedBatch(t testing.TB, pid int64, seq int32, kv ...string) []byte {
	t.Helper()
	var rs []record.Record
	for i := 0; i+1 < len(kv); i += 2 {
		rs = append(rs, record.Record{Key: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: 10, ProducerID: pid, ProducerEpoch: 0,
		BaseSequence: seq, Attributes: record.TransactionalBit}, rs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCleanRemovesAbortedTransactionsAndTheirMarkers(t *testing.T) {
	l := openTest(t, t.TempDir()+"/t-0", compactConfig())
	defer l.Close()
	cfg := l.Config()
	cfg.SegmentBytes = 1 << 20
	l.UpdateConfig(cfg)
	mustAppend(t, l, txnKeyedBatch(t, 7, 0, "a", "aborted"))   // 0
	mustMarker(t, l, 7, 0, record.ControlAbort)                // 1
	mustAppend(t, l, txnKeyedBatch(t, 8, 0, "b", "committed")) // 2
	mustMarker(t, l, 8, 0, record.ControlCommit)               // 3
	mustAppend(t, l, txnKeyedBatch(t, 7, 1, "a", "second"))    // 4: producer 7's last batch
	mustMarker(t, l, 7, 0, record.ControlCommit)               // 5
	mustAppend(t, l, keyedBatch(t, 11, "b", "plain"))          // 6: supersedes 2
	mustAppend(t, l, txnKeyedBatch(t, 9, 0, "x", "aborted"))   // 7
	mustMarker(t, l, 9, 0, record.ControlAbort)                // 8
	cfg.SegmentBytes = 1
	l.UpdateConfig(cfg)
	mustAppend(t, l, keyedBatch(t, 12, "z", "1")) // 9: rolls; 0-8 are cleanable
	if len(l.AbortedTransactions(0, 9)) != 2 {
		t.Fatalf("aborted transactions before cleaning: %v", l.AbortedTransactions(0, 9))
	}
	now := time.UnixMilli(5_000_000)
	cleanOnce(t, l, -1, now, 1<<20)
	// Aborted records go whatever their keys. Producer 8's committed batch
	// is superseded, but it is that producer's last batch, so its header
	// stays (empty) and with it the commit marker that follows it. The
	// abort marker at 1 stays this pass because its transaction's batch
	// was still there when the pass began.
	got := fmt.Sprint(surviving(t, l))
	want := "[1:marker 3:marker 4:a=second 5:marker 6:b=plain 8:marker 9:z=1]"
	if got != want {
		t.Fatalf("first clean:\n got %s\nwant %s", got, want)
	}
	// The abort marker at 1 now has nothing before it: it gets a delete
	// horizon and goes once that has passed. The one at 8 stays: the empty
	// header of its transaction's batch is producer 9's last.
	cleanOnce(t, l, -1, now.Add(2*time.Hour), 1<<20)
	// Its index entry went with its last batch, as in Kafka.
	if ab := l.AbortedTransactions(0, 9); len(ab) != 1 || ab[0].ProducerID != 9 {
		t.Fatalf("aborted transactions after the second pass: %v", ab)
	}
	cleanOnce(t, l, -1, now.Add(4*time.Hour), 1<<20)
	got = fmt.Sprint(surviving(t, l))
	want = "[3:marker 4:a=second 5:marker 6:b=plain 8:marker 9:z=1]"
	if got != want {
		t.Fatalf("after the horizon:\n got %s\nwant %s", got, want)
	}
	if ab := l.AbortedTransactions(0, 9); len(ab) != 1 || ab[0].ProducerID != 9 {
		t.Fatalf("aborted transactions after the first marker went: %v", ab)
	}
}
