package log

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// FuzzRecovery writes arbitrary bytes as a segment (after some valid
// batches), opens the log, and checks that recovery keeps exactly a valid
// prefix and that the log then works.
func FuzzRecovery(f *testing.F) {
	valid := append(makeBatch(f, 2, 1, "a"), makeBatch(f, 1, 2, "b")...)
	f.Add([]byte{}, []byte{})
	f.Add(valid, []byte("junk"))
	f.Add(valid[:40], []byte{})
	f.Add([]byte{}, make([]byte, 100))
	f.Fuzz(func(t *testing.T, prefix, tail []byte) {
		dir := filepath.Join(t.TempDir(), "t-0")
		os.MkdirAll(dir, 0o755)
		data := append(append([]byte(nil), prefix...), tail...)
		os.WriteFile(FileName(dir, 0, LogSuffix), data, 0o644)
		os.WriteFile(FileName(dir, 0, IndexSuffix), tail, 0o644)
		os.WriteFile(FileName(dir, 0, SnapshotSuffix), tail, 0o644)
		l, err := Open(dir, testConfig(), testLogger(t))
		if err != nil {
			return // an I/O-level refusal is fine; a panic is not
		}
		defer l.Close()
		size := l.Size()
		sp := record.NewSplitter(data[:size], 0)
		var next int64
		for {
			b, err := sp.Next()
			if err != nil {
				t.Fatalf("recovered prefix invalid: %v", err)
			}
			if b == nil {
				break
			}
			next = b.NextOffset()
		}
		if next != l.LogEndOffset() {
			t.Fatalf("leo %d, prefix ends at %d", l.LogEndOffset(), next)
		}
		if _, err := l.Append(makeBatch(t, 1, 1, "x"), AppendOptions{}); err != nil {
			t.Fatal(err)
		}
		readAll(t, l, l.LogStartOffset())
	})
}
