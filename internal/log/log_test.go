package log

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// fakeClock is a settable clock for tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testLogger(t testing.TB) *slog.Logger {
	if os.Getenv("LOGTEST") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func testConfig() Config {
	c := DefaultConfig()
	c.SegmentIndexBytes = 4096
	c.FileDeleteDelay = 0
	c.SegmentTime = 100 * 365 * 24 * time.Hour // test timestamps are tiny; keep segment.ms out of the way
	return c
}

// makeBatch builds a client batch of n records with timestamps ts, ts+1...
func makeBatch(t testing.TB, n int, ts int64, value string) []byte {
	t.Helper()
	return makeProducerBatch(t, n, ts, value, -1, -1, -1)
}

func makeProducerBatch(t testing.TB, n int, ts int64, value string, pid int64, epoch int16, seq int32) []byte {
	t.Helper()
	rs := make([]record.Record, n)
	for i := range rs {
		rs[i] = record.Record{TimestampDelta: int64(i), Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(value)}
	}
	b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: ts, ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq}, rs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openTest(t testing.TB, dir string, cfg Config) *Log {
	t.Helper()
	l, err := Open(dir, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustAppend(t testing.TB, l *Log, b []byte) AppendResult {
	t.Helper()
	res, err := l.Append(b, AppendOptions{LeaderEpoch: 0})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// readAll returns every batch from offset on.
func readAll(t testing.TB, l *Log, offset int64) []record.Batch {
	t.Helper()
	var out []record.Batch
	for offset < l.HighWatermark() {
		data, _, err := l.ReadBytes(nil, offset, 1<<20, true)
		if err != nil {
			t.Fatal(err)
		}
		sp := record.NewSplitter(data, 0)
		progressed := false
		for {
			b, err := sp.Next()
			if b == nil || err != nil {
				break
			}
			out = append(out, b)
			offset = b.NextOffset()
			progressed = true
		}
		if !progressed {
			t.Fatalf("no progress at offset %d", offset)
		}
	}
	return out
}

func TestAppendRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "topic-0")
	l := openTest(t, dir, testConfig())
	defer l.Close()
	for i := 0; i < 10; i++ {
		res := mustAppend(t, l, makeBatch(t, 3, 1000+int64(i), "v"))
		if res.FirstOffset != int64(i*3) || res.LastOffset != int64(i*3+2) || res.RecordCount != 3 {
			t.Fatalf("append %d: %+v", i, res)
		}
	}
	if l.LogEndOffset() != 30 || l.HighWatermark() != 30 || l.Topic() != "topic" || l.Partition() != 0 {
		t.Fatalf("leo %d hw %d", l.LogEndOffset(), l.HighWatermark())
	}
	batches := readAll(t, l, 0)
	if len(batches) != 10 {
		t.Fatalf("got %d batches", len(batches))
	}
	// Reading from an offset inside a batch starts at that batch.
	data, res, err := l.ReadBytes(nil, 4, 1<<20, false)
	if err != nil || record.Batch(data).BaseOffset() != 3 || res.HighWatermark != 30 {
		t.Fatalf("read mid-batch: %v %d", err, record.Batch(data).BaseOffset())
	}
	// maxBytes smaller than a batch: empty unless minOneBatch.
	if r, _ := l.Read(0, 10, false); r.Length != 10 {
		t.Fatalf("partial read length %d", r.Length)
	}
	if r, _ := l.Read(0, 10, true); r.Length != int64(len(batches[0])) {
		t.Fatalf("minOneBatch length %d", r.Length)
	}
	if r, err := l.Read(30, 100, true); err != nil || r.Length != 0 {
		t.Fatalf("read at end: %v %d", err, r.Length)
	}
	if _, err := l.Read(31, 100, true); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("read past end: %v", err)
	}
	// Rejections.
	bad := makeBatch(t, 1, 1, "x")
	bad[len(bad)-1] ^= 1
	if _, err := l.Append(bad, AppendOptions{}); !errors.Is(err, ErrCorruptRecord) {
		t.Fatalf("corrupt: %v", err)
	}
	big := makeBatch(t, 1, 1, string(make([]byte, 2<<20)))
	if _, err := l.Append(big, AppendOptions{}); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("too large: %v", err)
	}
}

func TestLogAppendTime(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(5_000_000)}
	cfg := testConfig()
	cfg.TimestampType = record.LogAppendTime
	cfg.Now = clock.Now
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	res := mustAppend(t, l, makeBatch(t, 2, 1, "v"))
	if res.LogAppendTime != 5_000_000 {
		t.Fatalf("log append time %d", res.LogAppendTime)
	}
	b := readAll(t, l, 0)[0]
	if b.TimestampType() != record.LogAppendTime || b.MaxTimestamp() != 5_000_000 || !b.ValidCRC() {
		t.Fatal("batch not stamped")
	}
}

func TestRollAndReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-1")
	cfg := testConfig()
	cfg.SegmentBytes = 1024
	cfg.IndexIntervalBytes = 100
	l := openTest(t, dir, cfg)
	var want int64
	for i := 0; i < 50; i++ {
		res := mustAppend(t, l, makeBatch(t, 2, int64(1000+i), "value-value"))
		want = res.LastOffset + 1
	}
	segs := l.SegmentBaseOffsets()
	if len(segs) < 3 {
		t.Fatalf("expected rolls, got %v", segs)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Inactive segments' indexes are trimmed; the snapshot exists.
	for _, base := range segs[:len(segs)-1] {
		st, err := os.Stat(FileName(dir, base, IndexSuffix))
		if err != nil || st.Size()%8 != 0 || st.Size() >= 4096 {
			t.Fatalf("index of %d not trimmed: %v %d", base, err, st.Size())
		}
	}
	if _, err := os.Stat(FileName(dir, want, SnapshotSuffix)); err != nil {
		t.Fatalf("no snapshot at close: %v", err)
	}
	cfg.RecoveryPoint = want
	l = openTest(t, dir, cfg)
	defer l.Close()
	if l.LogEndOffset() != want {
		t.Fatalf("reopened leo %d, want %d", l.LogEndOffset(), want)
	}
	got := readAll(t, l, 0)
	if len(got) != 50 {
		t.Fatalf("after reopen %d batches", len(got))
	}
	for i, b := range got {
		if b.BaseOffset() != int64(2*i) {
			t.Fatalf("batch %d at offset %d", i, b.BaseOffset())
		}
	}
	// Every offset is readable through the index.
	for off := int64(0); off < want; off++ {
		data, _, err := l.ReadBytes(nil, off, 100, true)
		if err != nil {
			t.Fatal(err)
		}
		b := record.Batch(data)
		if off < b.BaseOffset() || off > b.LastOffset() {
			t.Fatalf("offset %d read batch [%d,%d]", off, b.BaseOffset(), b.LastOffset())
		}
	}
}

func TestSegmentMsRoll(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(1_000_000)}
	cfg := testConfig()
	cfg.SegmentTime = time.Hour
	cfg.Now = clock.Now
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	mustAppend(t, l, makeBatch(t, 1, 1_000_000, "a"))
	clock.Add(2 * time.Hour)
	mustAppend(t, l, makeBatch(t, 1, clock.Now().UnixMilli(), "b"))
	if segs := l.SegmentBaseOffsets(); len(segs) != 2 || segs[1] != 1 {
		t.Fatalf("segments %v", segs)
	}
}

func TestCrashRecoveryTruncatesTail(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(path string, size int64)
		wantLEO int64
	}{
		{"garbage appended", func(p string, _ int64) { appendFile(t, p, []byte("this is not a batch at all, just junk bytes")) }, 30},
		{"torn last batch", func(p string, size int64) { os.Truncate(p, size-7) }, 27},
		{"zero tail", func(p string, _ int64) { appendFile(t, p, make([]byte, 4096)) }, 30},
		{"flipped bit in last batch", func(p string, size int64) { flipByte(t, p, size-3) }, 27},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t-0")
			cfg := testConfig()
			cfg.IndexIntervalBytes = -1
			l := openTest(t, dir, cfg)
			for i := 0; i < 10; i++ {
				mustAppend(t, l, makeBatch(t, 3, int64(i), "v"))
			}
			l.Close()
			path := FileName(dir, 0, LogSuffix)
			st, _ := os.Stat(path)
			c.corrupt(path, st.Size())
			// Simulate an unclean shutdown of the index too: preallocated zeros.
			os.Truncate(FileName(dir, 0, IndexSuffix), 4096)
			l = openTest(t, dir, cfg)
			defer l.Close()
			if l.LogEndOffset() != c.wantLEO {
				t.Fatalf("leo %d, want %d", l.LogEndOffset(), c.wantLEO)
			}
			if n := len(readAll(t, l, 0)); int64(n) != c.wantLEO/3 {
				t.Fatalf("%d batches", n)
			}
			res := mustAppend(t, l, makeBatch(t, 1, 100, "after"))
			if res.FirstOffset != c.wantLEO {
				t.Fatalf("append after recovery at %d", res.FirstOffset)
			}
		})
	}
}

func TestRecoveryDeletesLaterSegments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentBytes = 300
	l := openTest(t, dir, cfg)
	for i := 0; i < 20; i++ {
		mustAppend(t, l, makeBatch(t, 1, int64(i), "value"))
	}
	segs := l.SegmentBaseOffsets()
	l.Close()
	if len(segs) < 4 {
		t.Fatalf("segments %v", segs)
	}
	// Corrupt the second segment's first batch: everything from it on goes.
	flipByte(t, FileName(dir, segs[1], LogSuffix), 30)
	l = openTest(t, dir, cfg)
	defer l.Close()
	if l.LogEndOffset() != segs[1] {
		t.Fatalf("leo %d, want %d", l.LogEndOffset(), segs[1])
	}
	if got := l.SegmentBaseOffsets(); len(got) != 2 {
		t.Fatalf("segments after recovery %v", got)
	}
	if _, err := os.Stat(FileName(dir, segs[2], LogSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("later segment not deleted")
	}
}

func TestIndexRebuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentBytes = 2000
	cfg.IndexIntervalBytes = 50
	l := openTest(t, dir, cfg)
	for i := 0; i < 40; i++ {
		mustAppend(t, l, makeBatch(t, 2, int64(i*10), "value"))
	}
	segs := l.SegmentBaseOffsets()
	leo := l.LogEndOffset()
	l.Close()
	origIdx, _ := os.ReadFile(FileName(dir, segs[0], IndexSuffix))
	origTime, _ := os.ReadFile(FileName(dir, segs[0], TimeIndexSuffix))
	if len(origIdx) == 0 || len(origTime) == 0 {
		t.Fatal("indexes empty")
	}
	os.Remove(FileName(dir, segs[0], IndexSuffix))
	os.WriteFile(FileName(dir, segs[0], TimeIndexSuffix), []byte("garbage!!!!!!"), 0o644)
	cfg.RecoveryPoint = leo
	l = openTest(t, dir, cfg)
	l.Close()
	idx, _ := os.ReadFile(FileName(dir, segs[0], IndexSuffix))
	tim, _ := os.ReadFile(FileName(dir, segs[0], TimeIndexSuffix))
	if !bytes.Equal(idx, origIdx) || !bytes.Equal(tim, origTime) {
		t.Fatalf("rebuilt indexes differ:\n%x\n%x\n%x\n%x", idx, origIdx, tim, origTime)
	}
}

func TestRetention(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(10_000_000)}
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentBytes = 300
	cfg.RetentionTime = time.Hour
	cfg.Now = clock.Now
	l := openTest(t, dir, cfg)
	defer l.Close()
	for i := 0; i < 10; i++ {
		mustAppend(t, l, makeBatch(t, 1, clock.Now().UnixMilli(), "value"))
	}
	if n, _ := l.DeleteOldSegments(); n != 0 {
		t.Fatalf("deleted %d fresh segments", n)
	}
	clock.Add(30 * time.Minute)
	for i := 0; i < 10; i++ {
		mustAppend(t, l, makeBatch(t, 1, clock.Now().UnixMilli(), "value"))
	}
	clock.Add(45 * time.Minute) // first ten are 75 min old, next ten 45 min
	n, err := l.DeleteOldSegments()
	if err != nil || n == 0 {
		t.Fatalf("deleted %d, %v", n, err)
	}
	lso := l.LogStartOffset()
	if lso == 0 || lso > 10 || lso != l.SegmentBaseOffsets()[0] {
		t.Fatalf("log start offset %d, segments %v", lso, l.SegmentBaseOffsets())
	}
	if _, err := l.Read(0, 100, true); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("read below start: %v", err)
	}
	// Everything old: the active segment is rolled and only an empty one stays.
	clock.Add(2 * time.Hour)
	if _, err := l.DeleteOldSegments(); err != nil {
		t.Fatal(err)
	}
	if l.LogStartOffset() != 20 || l.LogEndOffset() != 20 || l.Size() != 0 {
		t.Fatalf("after full retention lso %d leo %d size %d", l.LogStartOffset(), l.LogEndOffset(), l.Size())
	}
	if res := mustAppend(t, l, makeBatch(t, 1, clock.Now().UnixMilli(), "v")); res.FirstOffset != 20 {
		t.Fatalf("append after retention at %d", res.FirstOffset)
	}
}

func TestRetentionBytes(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 300
	cfg.RetentionTime = -1
	cfg.RetentionBytes = 600
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	for i := 0; i < 30; i++ {
		mustAppend(t, l, makeBatch(t, 1, int64(i), "value"))
	}
	if _, err := l.DeleteOldSegments(); err != nil {
		t.Fatal(err)
	}
	// Kafka deletes a segment only if what remains is still >= retention.bytes.
	if l.Size() < 600 || l.Size() >= 600+300 || l.LogStartOffset() == 0 {
		t.Fatalf("size %d, lso %d", l.Size(), l.LogStartOffset())
	}
}

func TestDeleteRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentBytes = 300
	l := openTest(t, dir, cfg)
	for i := 0; i < 20; i++ {
		mustAppend(t, l, makeBatch(t, 1, int64(i), "value"))
	}
	if _, err := l.DeleteRecords(21); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("past hw: %v", err)
	}
	lso, err := l.DeleteRecords(7)
	if err != nil || lso != 7 || l.LogStartOffset() != 7 {
		t.Fatalf("lso %d %v", lso, err)
	}
	if segs := l.SegmentBaseOffsets(); segs[0] > 7 {
		t.Fatalf("deleted the segment holding the new start: %v", segs)
	}
	if _, err := l.Read(6, 100, true); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatal("read below start offset")
	}
	data, _, err := l.ReadBytes(nil, 7, 100, true)
	if err != nil || record.Batch(data).BaseOffset() != 7 {
		t.Fatalf("read at start: %v", err)
	}
	l.Close()
	cfg.LogStartOffset = 7
	l = openTest(t, dir, cfg)
	defer l.Close()
	if l.LogStartOffset() != 7 {
		t.Fatalf("reopened lso %d", l.LogStartOffset())
	}
}

func TestTimestampLookup(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 500
	cfg.IndexIntervalBytes = 60
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	// Batch i holds records at 1000+10i, 1000+10i+1, 1000+10i+2.
	for i := 0; i < 30; i++ {
		codec := record.CodecNone
		if i%2 == 1 {
			codec = record.CodecZstd
		}
		rs := []record.Record{{TimestampDelta: 0, Value: []byte("a")}, {TimestampDelta: 1, Value: []byte("b")}, {TimestampDelta: 2, Value: []byte("c")}}
		b, _ := record.Build(nil, record.BatchHeader{BaseTimestamp: 1000 + int64(10*i), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Codec: codec}, rs)
		mustAppend(t, l, b)
	}
	cases := []struct {
		ts        int64
		offset    int64
		timestamp int64
		found     bool
	}{
		{0, 0, 1000, true},
		{1000, 0, 1000, true},
		{1001, 1, 1001, true},
		{1003, 3, 1010, true},
		{1152, 47, 1152, true},
		{1291, 88, 1291, true},
		{1293, 0, 0, false},
	}
	for _, c := range cases {
		got, found, err := l.OffsetForTimestamp(c.ts)
		if err != nil || found != c.found || (found && (got.Offset != c.offset || got.Timestamp != c.timestamp)) {
			t.Errorf("ts %d: got %+v %v %v, want offset %d ts %d", c.ts, got, found, err, c.offset, c.timestamp)
		}
	}
	got, found, err := l.MaxTimestamp()
	if err != nil || !found || got.Timestamp != 1292 || got.Offset != 89 {
		t.Fatalf("max timestamp %+v %v %v", got, found, err)
	}
}

func TestLeaderEpochCheckpoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	l.Append(makeBatch(t, 2, 1, "a"), AppendOptions{LeaderEpoch: 0})
	l.Append(makeBatch(t, 2, 1, "a"), AppendOptions{LeaderEpoch: 0})
	l.Append(makeBatch(t, 2, 1, "a"), AppendOptions{LeaderEpoch: 3})
	l.Close()
	data, _ := os.ReadFile(filepath.Join(dir, LeaderEpochCheckpointFile))
	if string(data) != "0\n2\n0 0\n3 4\n" {
		t.Fatalf("checkpoint %q", data)
	}
	l = openTest(t, dir, testConfig())
	defer l.Close()
	if e, off := l.EndOffsetForEpoch(0); e != 0 || off != 4 {
		t.Fatalf("epoch 0 end %d %d", e, off)
	}
	if e, off := l.EndOffsetForEpoch(5); e != 3 || off != 6 {
		t.Fatalf("epoch 5 end %d %d", e, off)
	}
	if b := readAll(t, l, 4)[0]; b.PartitionLeaderEpoch() != 3 {
		t.Fatalf("batch epoch %d", b.PartitionLeaderEpoch())
	}
}

func appendFile(t testing.TB, path string, data []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
	f.Close()
}

func flipByte(t testing.TB, path string, pos int64) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	f.ReadAt(b, pos)
	b[0] ^= 0xff
	f.WriteAt(b, pos)
}

var _ = context.Background

func TestReadReportsAFirstBatchCutByMaxBytes(t *testing.T) {
	l, err := Open(t.TempDir()+"/cut-0", DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	batch, err := record.Build(nil, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		[]record.Record{{Value: make([]byte, 1000)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(batch, AppendOptions{Origin: FromClient, LeaderEpoch: -1}); err != nil {
		t.Fatal(err)
	}
	res, err := l.Read(0, 100, false)
	if err != nil || !res.FirstBatchIncomplete {
		t.Fatalf("cut read: incomplete=%v err=%v", res.FirstBatchIncomplete, err)
	}
	res, err = l.Read(0, 100, true)
	if err != nil || res.FirstBatchIncomplete || res.Length != int64(len(batch)) {
		t.Fatalf("minOneBatch read: incomplete=%v length=%d err=%v", res.FirstBatchIncomplete, res.Length, err)
	}
}

// TestCloseWritesTheFinalTimeIndexEntry checks what Kafka relies on after a
// clean shutdown: the active segment's largest timestamp is in its
// .timeindex, even when fewer than index.interval.bytes were written.
func TestCloseWritesTheFinalTimeIndexEntry(t *testing.T) {
	dir := t.TempDir() + "/tidx-0"
	l, err := Open(dir, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range []int64{1_700_000_000_500, 1_700_000_000_900, 1_700_000_000_100} {
		batch, err := record.Build(nil, record.BatchHeader{BaseTimestamp: ts, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
			[]record.Record{{Value: []byte("v")}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(batch, AppendOptions{Origin: FromClient, LeaderEpoch: -1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(FileName(dir, 0, TimeIndexSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 12 {
		t.Fatalf(".timeindex has %d bytes, want one 12-byte entry", len(data))
	}
	if ts, rel := int64(binary.BigEndian.Uint64(data)), binary.BigEndian.Uint32(data[8:]); ts != 1_700_000_000_900 || rel != 1 {
		t.Fatalf("entry (%d, %d), want (1700000000900, 1)", ts, rel)
	}
}

// TestCompactOnlyLogKeepsOldSegments: a compact-only topic (as
// __consumer_offsets) loses nothing to retention.ms or retention.bytes,
// only what lies below its log start offset, as in Kafka.
func TestCompactOnlyLogKeepsOldSegments(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(10_000_000)}
	cfg := testConfig()
	cfg.SegmentBytes = 300
	cfg.RetentionTime = time.Hour
	cfg.RetentionBytes = 300
	cfg.RetentionOff = true
	cfg.Now = clock.Now
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	for i := 0; i < 20; i++ {
		mustAppend(t, l, makeBatch(t, 1, clock.Now().UnixMilli(), "value"))
	}
	clock.Add(3 * time.Hour)
	if n, err := l.DeleteOldSegments(); n != 0 || err != nil {
		t.Fatalf("retention deleted %d segments of a compact-only log (%v)", n, err)
	}
	if _, err := l.DeleteRecords(10); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.DeleteOldSegments(); l.LogStartOffset() != 10 || l.SegmentBaseOffsets()[0] > 10 {
		t.Fatalf("after DeleteRecords(10) and %d more deletions: log start %d, segments %v", n, l.LogStartOffset(), l.SegmentBaseOffsets())
	}
}
