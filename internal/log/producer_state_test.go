package log

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestIdempotentProducer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	const pid = 77
	app := func(n int, epoch int16, seq int32) (AppendResult, error) {
		// Real timestamps: producers idle past producer.id.expiration.ms are dropped on load.
		return l.Append(makeProducerBatch(t, n, time.Now().UnixMilli(), "v", pid, epoch, seq), AppendOptions{LeaderEpoch: 0})
	}
	r0, err := app(3, 0, 0) // offsets 0-2, seq 0-2
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, makeBatch(t, 1, 1, "other")) // offset 3
	r1, err := app(2, 0, 3)                       // offsets 4-5, seq 3-4
	if err != nil {
		t.Fatal(err)
	}
	// Retry of either batch: original offsets, nothing written.
	for _, want := range []AppendResult{r0, r1} {
		seq := int32(0)
		n := 3
		if want.FirstOffset == r1.FirstOffset {
			seq, n = 3, 2
		}
		dup, err := app(n, 0, seq)
		if err != nil || !dup.Duplicate || dup.FirstOffset != want.FirstOffset || dup.LastOffset != want.LastOffset {
			t.Fatalf("duplicate: %+v %v, want %+v", dup, err, want)
		}
	}
	if l.LogEndOffset() != 6 {
		t.Fatalf("duplicate was written: leo %d", l.LogEndOffset())
	}
	if _, err := app(1, 0, 7); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("gap: %v", err)
	}
	if _, err := app(1, 1, 5); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("new epoch not at 0: %v", err)
	}
	if _, err := app(1, 1, 0); err != nil {
		t.Fatalf("new epoch at 0: %v", err)
	}
	if _, err := app(1, 0, 5); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("old epoch: %v", err)
	}
	// Two batches of one producer in one request check against each other.
	two := append(makeProducerBatch(t, 1, time.Now().UnixMilli(), "v", pid, 1, 1), makeProducerBatch(t, 1, time.Now().UnixMilli(), "v", pid, 1, 2)...)
	if _, err := l.Append(two, AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := append(makeProducerBatch(t, 1, time.Now().UnixMilli(), "v", pid, 1, 3), makeProducerBatch(t, 1, time.Now().UnixMilli(), "v", pid, 1, 9)...)
	if _, err := l.Append(bad, AppendOptions{}); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("second batch gap: %v", err)
	}
	leo := l.LogEndOffset()
	l.Close()

	// State survives a restart through the snapshot...
	l = openTest(t, dir, testConfig())
	if dup, err := app(1, 1, 2); err != nil || !dup.Duplicate {
		t.Fatalf("dedupe after reopen: %+v %v", dup, err)
	}
	if _, err := app(1, 1, 4); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("gap after reopen: %v", err)
	}
	l.Close()
	// ...and is rebuilt from the log when the snapshot is gone.
	os.Remove(FileName(dir, leo, SnapshotSuffix))
	l = openTest(t, dir, testConfig())
	defer l.Close()
	if dup, err := app(1, 1, 2); err != nil || !dup.Duplicate {
		t.Fatalf("dedupe after rebuild: %+v %v", dup, err)
	}
	if _, err := app(1, 1, 3); err != nil {
		t.Fatalf("next sequence after rebuild: %v", err)
	}
}

func TestSnapshotFormat(t *testing.T) {
	m := newProducerStateManager()
	e := newProducerEntry(5)
	e.epoch = 2
	e.coordinatorEpoch = 7
	e.lastTimestamp = 12345
	e.addBatch(batchMetadata{firstSeq: 10, lastSeq: 14, firstOffset: 100, lastOffset: 104, timestamp: 12345})
	m.producers[5] = &e
	buf := encodeSnapshot(m)
	if len(buf) != 10+46 || buf[1] != 1 {
		t.Fatalf("snapshot size %d", len(buf))
	}
	got, err := decodeSnapshot(buf)
	if err != nil {
		t.Fatal(err)
	}
	g := got[5]
	b, _ := g.lastBatch()
	if g.epoch != 2 || g.coordinatorEpoch != 7 || g.lastTimestamp != 12345 || g.currentTxnFirstOffset != -1 ||
		b != (batchMetadata{firstSeq: 10, lastSeq: 14, firstOffset: 100, lastOffset: 104, timestamp: 12345}) {
		t.Fatalf("round trip: %+v %+v", g, b)
	}
	buf[20] ^= 1
	if _, err := decodeSnapshot(buf); err == nil {
		t.Fatal("crc not checked")
	}
}

// TestDuplicateAnswersOriginalTimestamp: a retried idempotent batch is
// answered with the original batch's timestamp as its append time, as
// Kafka's UnifiedLog answers a duplicate.
func TestDuplicateAnswersOriginalTimestamp(t *testing.T) {
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), testConfig())
	defer l.Close()
	ts := time.Now().UnixMilli()
	first, err := l.Append(makeProducerBatch(t, 3, ts, "v", 5, 0, 0), AppendOptions{LeaderEpoch: 0})
	if err != nil || first.LogAppendTime != -1 {
		t.Fatalf("first append: %+v %v", first, err)
	}
	dup, err := l.Append(makeProducerBatch(t, 3, ts+500, "v", 5, 0, 0), AppendOptions{LeaderEpoch: 0})
	if err != nil || !dup.Duplicate || dup.LogAppendTime != ts+2 {
		t.Fatalf("duplicate: %+v %v, want the original's max timestamp %d", dup, err, ts+2)
	}
}
