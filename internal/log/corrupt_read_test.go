package log

import (
	"bytes"
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// logSink collects a log's output for assertions.
type logSink struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *logSink) logger() *slog.Logger { return slog.New(slog.NewTextHandler(s, nil)) }

// A corrupt length field in a segment below the recovery point (which
// Open does not validate) is served up to the corruption, then answered
// with CORRUPT_MESSAGE (ErrCorruptRecord), not the retriable storage error
// a consumer would retry for ever, and logged with the file and position.
func TestReadOfACorruptBatchLengthIsCorruptRecord(t *testing.T) {
	for _, c := range []struct {
		name   string
		length int32
	}{{"short", 3}, {"past the file", 1 << 30}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir() + "/t-0"
			cfg := testConfig()
			cfg.SegmentBytes = 1024
			l := openTest(t, dir, cfg)
			var positions []int64
			for i := 0; len(l.SegmentBaseOffsets()) < 3; i++ {
				if l.active().baseOffset == 0 {
					positions = append(positions, l.active().size.Load())
				}
				mustAppend(t, l, makeBatch(t, 2, int64(i), "value"))
			}
			cfg.RecoveryPoint = l.LogEndOffset()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			// The third batch of the oldest segment (offsets 4 and 5).
			f, err := os.OpenFile(FileName(dir, 0, LogSuffix), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			var length [4]byte
			binary.BigEndian.PutUint32(length[:], uint32(c.length))
			if _, err := f.WriteAt(length[:], positions[2]+8); err != nil {
				t.Fatal(err)
			}
			f.Close()

			sink := &logSink{}
			l, err = Open(dir, cfg, sink.logger())
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			data, _, err := l.ReadBytes(nil, 0, 1<<20, true)
			if err != nil {
				t.Fatalf("read before the corruption: %v", err)
			}
			sp := record.NewSplitter(data, 0)
			if b, err := sp.Next(); err != nil || b.BaseOffset() != 0 {
				t.Fatalf("read before the corruption: batch %v, %v", b, err)
			}
			_, _, err = l.ReadBytes(nil, 4, 1<<20, true)
			if !errors.Is(err, ErrCorruptRecord) {
				t.Fatalf("read of the corrupt batch: %v, want ErrCorruptRecord", err)
			}
			where := "position " + strconv.FormatInt(positions[2], 10) + " of " + FileName(dir, 0, LogSuffix)
			if !strings.Contains(err.Error(), where) {
				t.Fatalf("error %q does not say %q", err, where)
			}
			if out := sink.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, where) {
				t.Fatalf("no ERROR naming %q in the log:\n%s", where, out)
			}
		})
	}
}
