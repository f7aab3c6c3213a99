package log

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

func makeTxnBatch(t testing.TB, n int, ts int64, pid int64, epoch int16, seq int32) []byte {
	t.Helper()
	rs := make([]record.Record, n)
	for i := range rs {
		rs[i] = record.Record{TimestampDelta: int64(i), Value: []byte("txn")}
	}
	b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: ts, ProducerID: pid, ProducerEpoch: epoch,
		BaseSequence: seq, Attributes: record.TransactionalBit}, rs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func appendMarker(l *Log, pid int64, epoch int16, coordEpoch int32, typ record.ControlType, tv int8) (AppendResult, error) {
	m := record.Marker{ProducerID: pid, ProducerEpoch: epoch, CoordinatorEpoch: coordEpoch, Type: typ, Timestamp: 5}
	return l.Append(record.BuildMarker(nil, m), AppendOptions{Origin: FromCoordinator, LeaderEpoch: 0, TransactionVersion: tv})
}

func mustMarker(t testing.TB, l *Log, pid int64, epoch int16, typ record.ControlType) AppendResult {
	t.Helper()
	res, err := appendMarker(l, pid, epoch, 0, typ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// kafkaTxnIndexEntry spells out Kafka's 34-byte AbortedTxn layout.
func kafkaTxnIndexEntry(pid, first, last, lso int64) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint64(b, uint64(pid))
	b = binary.BigEndian.AppendUint64(b, uint64(first))
	b = binary.BigEndian.AppendUint64(b, uint64(last))
	return binary.BigEndian.AppendUint64(b, uint64(lso))
}

func readCommitted(t testing.TB, l *Log, offset int64) ([]record.Batch, ReadResult) {
	t.Helper()
	data, res, err := l.ReadBytesIsolated(nil, offset, 1<<20, true, ReadCommitted)
	if err != nil {
		t.Fatal(err)
	}
	var out []record.Batch
	sp := record.NewSplitter(data, 0)
	for {
		b, err := sp.Next()
		if b == nil || err != nil {
			return out, res
		}
		out = append(out, b)
	}
}

// buildAbortCommit writes: plain 0-1, P1 txn 2-3, P2 txn 4-5, abort P1 at
// 6, commit P2 at 7.
func buildAbortCommit(t *testing.T, l *Log) {
	t.Helper()
	mustAppend(t, l, makeBatch(t, 2, 1, "plain"))
	mustAppend(t, l, makeTxnBatch(t, 2, 2, 1001, 0, 0))
	if got := l.LastStableOffset(); got != 2 {
		t.Fatalf("LSO with P1 open = %d, want 2", got)
	}
	mustAppend(t, l, makeTxnBatch(t, 2, 3, 1002, 0, 0))
	if got := l.LastStableOffset(); got != 2 {
		t.Fatalf("LSO with P1, P2 open = %d, want 2", got)
	}
	if res := mustMarker(t, l, 1001, 0, record.ControlAbort); res.FirstOffset != 6 {
		t.Fatalf("abort marker at %d", res.FirstOffset)
	}
	if got := l.LastStableOffset(); got != 4 {
		t.Fatalf("LSO after P1 abort = %d, want 4", got)
	}
	mustMarker(t, l, 1002, 0, record.ControlCommit)
	if got := l.LastStableOffset(); got != 8 {
		t.Fatalf("LSO after P2 commit = %d, want 8", got)
	}
}

func TestTxnAbortCommitLastStableOffsetAndIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	defer l.Close()

	if _, err := os.Stat(FileName(dir, 0, TxnIndexSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("txnindex exists before any abort: %v", err)
	}
	mustAppend(t, l, makeBatch(t, 2, 1, "plain"))
	mustAppend(t, l, makeTxnBatch(t, 2, 2, 1001, 0, 0))
	// read_committed stops at the open transaction; read_uncommitted does not.
	got, res := readCommitted(t, l, 0)
	if len(got) != 1 || got[0].LastOffset() != 1 || res.LastStableOffset != 2 || res.HighWatermark != 4 {
		t.Fatalf("read_committed at 0: %d batches, res %+v", len(got), res)
	}
	if res.AbortedTransactions != nil {
		t.Fatalf("aborted %v", res.AbortedTransactions)
	}
	if got, _ := readCommitted(t, l, 2); len(got) != 0 {
		t.Fatalf("read_committed at the LSO returned %d batches", len(got))
	}
	if n := len(readAll(t, l, 0)); n != 2 {
		t.Fatalf("read_uncommitted saw %d batches", n)
	}

	mustAppend(t, l, makeTxnBatch(t, 2, 3, 1002, 0, 0))
	mustMarker(t, l, 1001, 0, record.ControlAbort)
	mustMarker(t, l, 1002, 0, record.ControlCommit)

	want := kafkaTxnIndexEntry(1001, 2, 6, 4)
	if b, err := os.ReadFile(FileName(dir, 0, TxnIndexSuffix)); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("txnindex bytes %x (%v), want %x", b, err, want)
	}
	got, res = readCommitted(t, l, 0)
	if len(got) != 5 || res.LastStableOffset != 8 {
		t.Fatalf("read_committed after markers: %d batches, %+v", len(got), res)
	}
	wantAborted := []AbortedTxn{{ProducerID: 1001, FirstOffset: 2, LastOffset: 6, LastStableOffset: 4}}
	if len(res.AbortedTransactions) != 1 || res.AbortedTransactions[0] != wantAborted[0] {
		t.Fatalf("aborted %v", res.AbortedTransactions)
	}
	for _, c := range []struct {
		from, upper int64
		n           int
	}{{0, 8, 1}, {2, 3, 1}, {6, 8, 1}, {7, 8, 0}, {0, 2, 0}, {0, 3, 1}} {
		if a := l.AbortedTransactions(c.from, c.upper); len(a) != c.n {
			t.Errorf("AbortedTransactions(%d, %d) = %v, want %d entries", c.from, c.upper, a, c.n)
		}
	}
	if ps := l.Producers(); len(ps) != 2 || ps[0].CurrentTxnStartOffset != -1 || ps[0].CoordinatorEpoch != 0 {
		t.Fatalf("producers %+v", ps)
	}
}

func TestTxnMarkerChecks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	defer l.Close()

	// A marker for a producer with no open transaction is written, and
	// leaves no txnindex entry.
	if res, err := appendMarker(l, 7, 0, 3, record.ControlAbort, 0); err != nil || res.FirstOffset != 0 {
		t.Fatalf("marker without transaction: %+v %v", res, err)
	}
	if _, err := os.Stat(FileName(dir, 0, TxnIndexSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("empty abort indexed")
	}
	mustAppend(t, l, makeTxnBatch(t, 1, 2, 7, 1, 0)) // epoch 1, offset 1
	if _, err := appendMarker(l, 7, 0, 3, record.ControlCommit, 0); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("older producer epoch: %v", err)
	}
	if _, err := appendMarker(l, 7, 1, 2, record.ControlCommit, 0); !errors.Is(err, ErrTransactionCoordinatorFenced) {
		t.Fatalf("older coordinator epoch: %v", err)
	}
	// Transaction version 2: the marker needs a bumped epoch.
	if _, err := appendMarker(l, 7, 1, 3, record.ControlCommit, 2); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("TV2 marker with the same epoch: %v", err)
	}
	if l.LastStableOffset() != 1 {
		t.Fatalf("a refused marker moved the LSO to %d", l.LastStableOffset())
	}
	if _, err := appendMarker(l, 7, 2, 3, record.ControlCommit, 2); err != nil {
		t.Fatal(err)
	}
	if l.LastStableOffset() != l.HighWatermark() {
		t.Fatalf("LSO %d after commit, HW %d", l.LastStableOffset(), l.HighWatermark())
	}
	// A TV2 retry of the marker just written (same epoch, nothing open) is allowed.
	if _, err := appendMarker(l, 7, 2, 3, record.ControlCommit, 2); err != nil {
		t.Fatalf("TV2 marker retry: %v", err)
	}
	// A plain batch from a producer with an open transaction is refused.
	mustAppend(t, l, makeTxnBatch(t, 1, 3, 8, 0, 0))
	if _, err := l.Append(makeProducerBatch(t, 1, 4, "x", 8, 0, 1), AppendOptions{}); !errors.Is(err, ErrInvalidTxnState) {
		t.Fatalf("non-transactional write inside a transaction: %v", err)
	}
	// A control batch from a coordinator must be a marker.
	bad, _ := record.Build(nil, record.BatchHeader{ProducerID: 8, ProducerEpoch: 0, BaseSequence: -1,
		Attributes: record.ControlBit | record.TransactionalBit}, []record.Record{{Key: []byte{0, 0, 0, 9}}})
	if _, err := l.Append(bad, AppendOptions{Origin: FromCoordinator}); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("unknown control record: %v", err)
	}
}

// crashCopy copies a live log's directory as a kill -9 would leave it: no
// Close, so no final snapshot and no trimmed indexes.
func crashCopy(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return dst
}

func TestTxnStateSurvivesRestart(t *testing.T) {
	for _, mode := range []string{"clean", "clean at recovery point", "kill -9"} {
		crash := mode == "kill -9"
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t-0")
			cfg := testConfig()
			cfg.SegmentBytes = 300 // several segments
			l := openTest(t, dir, cfg)
			buildAbortCommit(t, l)
			// P3 opens a transaction and P1 (epoch 1) aborts another after it.
			mustAppend(t, l, makeTxnBatch(t, 1, 10, 1003, 0, 0))
			p3First := l.LogEndOffset() - 1
			mustAppend(t, l, makeTxnBatch(t, 1, 11, 1001, 1, 0))
			mustMarker(t, l, 1001, 1, record.ControlAbort)
			mustAppend(t, l, makeBatch(t, 1, 12, "plain"))
			wantLSO, wantLEO := l.LastStableOffset(), l.LogEndOffset()
			if wantLSO != p3First {
				t.Fatalf("LSO %d, want P3's first offset %d", wantLSO, p3First)
			}
			wantAborted := l.AbortedTransactions(0, wantLEO)
			if len(wantAborted) != 2 || wantAborted[1].LastStableOffset != p3First {
				t.Fatalf("aborted %+v", wantAborted)
			}
			idx := map[int64][]byte{}
			for _, base := range l.SegmentBaseOffsets() {
				idx[base], _ = os.ReadFile(FileName(dir, base, TxnIndexSuffix))
			}
			reopenDir := dir
			if crash {
				reopenDir = crashCopy(t, dir)
				// A crash may lose the txnindex writes of the active segment.
				os.Remove(FileName(reopenDir, l.SegmentBaseOffsets()[len(l.SegmentBaseOffsets())-1], TxnIndexSuffix))
				defer l.Close()
			} else {
				l.Close()
			}
			if mode == "clean at recovery point" {
				cfg.RecoveryPoint = wantLEO // only the active segment is recovered
			}
			l2 := openTest(t, reopenDir, cfg)
			defer l2.Close()
			if l2.LogEndOffset() != wantLEO || l2.LastStableOffset() != wantLSO {
				t.Fatalf("after restart LEO %d LSO %d, want %d %d", l2.LogEndOffset(), l2.LastStableOffset(), wantLEO, wantLSO)
			}
			if got := l2.AbortedTransactions(0, wantLEO); len(got) != len(wantAborted) || got[0] != wantAborted[0] || got[1] != wantAborted[1] {
				t.Fatalf("aborted after restart %+v, want %+v", got, wantAborted)
			}
			for base, want := range idx {
				got, _ := os.ReadFile(FileName(reopenDir, base, TxnIndexSuffix))
				if !bytes.Equal(got, want) {
					t.Fatalf("segment %d txnindex %x, want %x", base, got, want)
				}
			}
			// The read stops at P3's open transaction until its marker.
			got, res := readCommitted(t, l2, 0)
			if last := got[len(got)-1].LastOffset(); last >= p3First || res.LastStableOffset != p3First {
				t.Fatalf("read_committed reached %d, LSO %d", last, res.LastStableOffset)
			}
			mustMarker(t, l2, 1003, 0, record.ControlCommit)
			if l2.LastStableOffset() != l2.HighWatermark() {
				t.Fatalf("LSO %d after the late commit, HW %d", l2.LastStableOffset(), l2.HighWatermark())
			}
		})
	}
}

func TestTxnAbortAcrossSegments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentBytes = 200
	l := openTest(t, dir, cfg)
	defer l.Close()
	mustAppend(t, l, makeTxnBatch(t, 2, 1, 1001, 0, 0)) // 0-1, segment 0
	for i := 0; i < 4; i++ {
		mustAppend(t, l, makeBatch(t, 1, 2, "plain-plain-plain-plain"))
	}
	if len(l.SegmentBaseOffsets()) < 2 {
		t.Fatalf("no roll: %v", l.SegmentBaseOffsets())
	}
	if got, _ := readCommitted(t, l, 2); len(got) != 0 {
		t.Fatal("read past an open transaction in an earlier segment")
	}
	res := mustMarker(t, l, 1001, 0, record.ControlAbort)
	bases := l.SegmentBaseOffsets()
	markerSeg := bases[len(bases)-1]
	if b, _ := os.ReadFile(FileName(dir, markerSeg, TxnIndexSuffix)); !bytes.Equal(b, kafkaTxnIndexEntry(1001, 0, res.FirstOffset, res.FirstOffset+1)) {
		t.Fatalf("txnindex of segment %d: %x", markerSeg, b)
	}
	// A fetch of segment 0 alone still learns of the abort indexed in a later segment.
	_, rr := readCommitted(t, l, 0)
	if len(rr.AbortedTransactions) != 1 || rr.AbortedTransactions[0].ProducerID != 1001 {
		t.Fatalf("aborted %+v", rr.AbortedTransactions)
	}
	// Deleting the segments deletes their txnindex.
	l.DeleteRecords(l.HighWatermark())
	for _, base := range bases[:len(bases)-1] {
		if _, err := os.Stat(FileName(dir, base, TxnIndexSuffix)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("segment %d's txnindex outlived it", base)
		}
	}
}

func TestTxnRecoveryTruncationReopensTransaction(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	defer l.Close()
	mustAppend(t, l, makeTxnBatch(t, 2, 1, 1001, 0, 0))
	before, _ := os.Stat(FileName(dir, 0, LogSuffix))
	mustMarker(t, l, 1001, 0, record.ControlAbort)
	if l.LastStableOffset() != 3 {
		t.Fatalf("LSO %d", l.LastStableOffset())
	}
	cp := crashCopy(t, dir)
	// The marker was torn by the crash.
	os.Truncate(FileName(cp, 0, LogSuffix), before.Size()+10)
	l2 := openTest(t, cp, testConfig())
	defer l2.Close()
	if l2.LogEndOffset() != 2 || l2.LastStableOffset() != 0 {
		t.Fatalf("LEO %d LSO %d after losing the marker", l2.LogEndOffset(), l2.LastStableOffset())
	}
	if _, err := os.Stat(FileName(cp, 0, TxnIndexSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("txnindex entry of a truncated marker kept")
	}
	if a := l2.AbortedTransactions(0, 10); len(a) != 0 {
		t.Fatalf("aborted %v", a)
	}
	mustMarker(t, l2, 1001, 0, record.ControlAbort)
	if b, _ := os.ReadFile(FileName(cp, 0, TxnIndexSuffix)); !bytes.Equal(b, kafkaTxnIndexEntry(1001, 0, 2, 3)) {
		t.Fatalf("txnindex %x", b)
	}
}

func TestTxnIndexBelowRecoveryPointRebuiltWhenCorrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentBytes = 200
	l := openTest(t, dir, cfg)
	mustAppend(t, l, makeTxnBatch(t, 2, 1, 1001, 0, 0))
	mustMarker(t, l, 1001, 0, record.ControlAbort)
	for len(l.SegmentBaseOffsets()) < 3 {
		mustAppend(t, l, makeBatch(t, 1, 2, "plain-plain-plain-plain"))
	}
	leo := l.LogEndOffset()
	l.Close()
	want, _ := os.ReadFile(FileName(dir, 0, TxnIndexSuffix))
	appendFile(t, FileName(dir, 0, TxnIndexSuffix), []byte{1, 2, 3})
	cfg.RecoveryPoint = leo
	l2 := openTest(t, dir, cfg)
	defer l2.Close()
	if got, _ := os.ReadFile(FileName(dir, 0, TxnIndexSuffix)); !bytes.Equal(got, want) {
		t.Fatalf("rebuilt txnindex %x, want %x", got, want)
	}
}

func TestReadCommittedDoesNotAllocateWithoutAborts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	defer l.Close()
	mustAppend(t, l, makeBatch(t, 2, 1, "plain"))
	mustAppend(t, l, makeTxnBatch(t, 2, 2, 1001, 0, 0))
	n := testing.AllocsPerRun(100, func() {
		if _, err := l.ReadIsolated(0, 1<<20, true, ReadCommitted); err != nil {
			t.Fatal(err)
		}
	})
	if n > 0 {
		t.Fatalf("%v allocations per read_committed Read", n)
	}
}

func FuzzTxnIndexDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add(kafkaTxnIndexEntry(1, 2, 6, 4))
	f.Add(append(kafkaTxnIndexEntry(1, 2, 6, 4), kafkaTxnIndexEntry(2, 3, 9, 10)...))
	f.Add(kafkaTxnIndexEntry(1, 7, 6, 4))
	f.Add(make([]byte, 33))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decodeTxnIndex(data)
		if err != nil {
			return
		}
		var again []byte
		for _, e := range entries {
			again = appendAbortedTxn(again, e)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("re-encoding differs: %x vs %x", again, data)
		}
		// The same bytes as a segment's file open without harm.
		dir := filepath.Join(t.TempDir(), "t-0")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(FileName(dir, 0, TxnIndexSuffix), data, 0o644)
		l, err := Open(dir, testConfig(), testLogger(t))
		if err != nil {
			return
		}
		l.AbortedTransactions(0, 1<<40)
		l.Close()
	})
}

// BenchmarkAppendTransactional: transactions of ten batches, each ended by
// a commit marker, as the transaction coordinator writes them.
func BenchmarkAppendTransactional(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentIndexBytes = 10 << 20
	l := openTest(b, dir, cfg)
	defer l.Close()
	batches := make([][]byte, 10)
	for i := range batches {
		batches[i] = makeTxnBatch(b, 10, 1, 42, 0, 0)
	}
	marker := record.BuildMarker(nil, record.Marker{ProducerID: 42, ProducerEpoch: 0, Type: record.ControlCommit, Timestamp: 1})
	seq := int32(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := batches[i%10]
		binary.BigEndian.PutUint32(batch[53:], uint32(seq)) // base sequence
		seq += 10
		record.Batch(batch).SetBaseOffset(0)
		fixCRC(batch)
		if _, err := l.Append(batch, AppendOptions{LeaderEpoch: 0}); err != nil {
			b.Fatal(err)
		}
		if i%10 == 9 {
			if _, err := l.Append(marker, AppendOptions{Origin: FromCoordinator, LeaderEpoch: 0}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// fixCRC recomputes a batch's CRC after a header field changed.
func fixCRC(b []byte) {
	binary.BigEndian.PutUint32(b[17:], record.CRC32C(b[21:]))
}
