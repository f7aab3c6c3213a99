package log

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record/recordtest"
)

// TestRecoveryAtChunkBoundaries: a batch may start anywhere relative to
// the chunks recovery reads, including in the last bytes of a chunk where
// its size field is split across two reads. Recovery after a kill -9 must
// keep every acknowledged batch wherever it falls, and cut a batch the
// crash tore there, and only it.
func TestRecoveryAtChunkBoundaries(t *testing.T) {
	for delta := -32; delta <= 32; delta++ {
		t.Run("start "+strconv.Itoa(delta), func(t *testing.T) {
			start := RecoveryChunkBytes + int64(delta)
			l, dir := logWithBatchAt(t, start, 100)
			leo, size := l.LogEndOffset(), l.Size()
			crashed := crashCopy(t, dir)
			torn := map[int64]string{}
			for _, kept := range []int64{5, 16, 17, 40} { // bytes of the boundary batch the crash left
				torn[kept] = crashCopy(t, dir)
				if err := os.Truncate(FileName(torn[kept], 0, LogSuffix), start+kept); err != nil {
					t.Fatal(err)
				}
			}
			l.Close()

			r := openUnclean(t, crashed)
			if r.LogEndOffset() != leo || r.Size() != size {
				t.Fatalf("after recovery: log end %d and %d bytes, want %d and %d", r.LogEndOffset(), r.Size(), leo, size)
			}
			for i, b := range readAll(t, r, 0) {
				if b.BaseOffset() != int64(i) {
					t.Fatalf("batch %d has base offset %d", i, b.BaseOffset())
				}
			}
			for kept, d := range torn {
				r := openUnclean(t, d)
				if want := leo - 101; r.LogEndOffset() != want || r.Size() != start {
					t.Fatalf("torn with %d bytes kept: log end %d and %d bytes, want %d and %d", kept, r.LogEndOffset(), r.Size(), want, start)
				}
			}
		})
	}
}

// openUnclean opens a log as a start after kill -9 does: with a recovery
// point of 0, the whole active segment is recovered.
func openUnclean(t *testing.T, dir string) *Log {
	t.Helper()
	cfg := testConfig()
	cfg.RecoveryPoint = 0
	l := openTest(t, dir, cfg)
	t.Cleanup(func() { l.Close() })
	return l
}

// logWithBatchAt appends one-record batches so that one starts at byte
// position pos of the first segment, then after batches more,
// waiting until all are durable as an acknowledgement with acks=all would.
func logWithBatchAt(t *testing.T, pos int64, after int) (*Log, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	cfg.SegmentIndexBytes = 1 << 20
	l := openTest(t, dir, cfg)
	batchOf := func(valueLen int) []byte { return makeBatch(t, 1, 1, strings.Repeat("x", valueLen)) }
	lens, err := recordtest.FillValueLens(pos, func(v int) int { return len(batchOf(v)) })
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range lens {
		mustAppend(t, l, batchOf(v))
	}
	if l.Size() != pos {
		t.Fatalf("filled %d bytes, want %d", l.Size(), pos)
	}
	for i := 0; i <= after; i++ {
		mustAppend(t, l, batchOf(i%50))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := l.WaitDurable(ctx, l.LogEndOffset()-1); err != nil {
		t.Fatal(err)
	}
	return l, dir
}
