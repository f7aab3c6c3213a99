package log

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// writeBatches appends n batches of 3 records with rising timestamps.
func writeBatches(t *testing.T, l *Log, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		mustAppend(t, l, makeBatch(t, 3, int64(1000+i), "value-of-some-length"))
	}
}

func cleanConfig(recoveryPoint int64) Config {
	cfg := testConfig()
	cfg.IndexIntervalBytes = 300
	cfg.CleanShutdown = true
	cfg.RecoveryPoint = recoveryPoint
	return cfg
}

// TestCleanShutdownLeavesTheSameFilesAsRecovery: a log reopened after a
// clean shutdown without reading its records continues exactly as one
// whose active segment was recovered record by record: same next offset,
// same index entries, same bytes.
func TestCleanShutdownLeavesTheSameFilesAsRecovery(t *testing.T) {
	root := t.TempDir()
	ref := openTest(t, filepath.Join(root, "ref-0"), cleanConfig(0))
	writeBatches(t, ref, 0, 80)
	ref.Close()
	recovered := cleanConfig(ref.LogEndOffset())
	recovered.CleanShutdown = false
	ref = openTest(t, filepath.Join(root, "ref-0"), recovered)
	writeBatches(t, ref, 80, 40)
	ref.Close()

	dir := filepath.Join(root, "t-0")
	l := openTest(t, dir, cleanConfig(0))
	writeBatches(t, l, 0, 80)
	leo := l.LogEndOffset()
	l.Close()
	l = openTest(t, dir, cleanConfig(leo))
	if l.LogEndOffset() != leo {
		t.Fatalf("log end %d after a clean restart, want %d", l.LogEndOffset(), leo)
	}
	writeBatches(t, l, 80, 40)
	if n := len(readAll(t, l, 0)); n != 120 {
		t.Fatalf("%d batches readable, want 120", n)
	}
	l.Close()
	for _, suffix := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix} {
		want, _ := os.ReadFile(FileName(filepath.Join(root, "ref-0"), 0, suffix))
		got, _ := os.ReadFile(FileName(dir, 0, suffix))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Fatalf("%s differs from the recovered log (%d vs %d bytes)", suffix, len(got), len(want))
		}
	}
}

// TestCleanShutdownDoesNotReadRecords: after a clean shutdown the records
// are trusted (a flipped byte inside an indexed batch is not noticed, as
// in Kafka); without the marker recovery finds it and cuts the log there.
// A log that does not match its indexes is recovered despite the marker.
func TestCleanShutdownDoesNotReadRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, cleanConfig(0))
	writeBatches(t, l, 0, 50)
	leo := l.LogEndOffset()
	l.Close()
	path := FileName(dir, 0, LogSuffix)
	flipByte(t, path, 100) // inside the first batch's records

	l = openTest(t, dir, cleanConfig(leo))
	if l.LogEndOffset() != leo {
		t.Fatalf("clean restart: log end %d, want %d (records were validated)", l.LogEndOffset(), leo)
	}
	l.Close()

	unclean := cleanConfig(0)
	unclean.CleanShutdown = false
	l = openTest(t, dir, unclean)
	if l.LogEndOffset() != 0 {
		t.Fatalf("unclean restart: log end %d, want 0 (the first batch is corrupt)", l.LogEndOffset())
	}
	l.Close()

	dir = filepath.Join(t.TempDir(), "t-0")
	l = openTest(t, dir, cleanConfig(0))
	writeBatches(t, l, 0, 50)
	leo = l.LogEndOffset()
	l.Close()
	path = FileName(dir, 0, LogSuffix)
	st, _ := os.Stat(path)
	os.Truncate(path, st.Size()-7) // a torn last batch: not what a clean shutdown leaves
	l = openTest(t, dir, cleanConfig(leo))
	defer l.Close()
	if l.LogEndOffset() != leo-3 {
		t.Fatalf("torn tail under a clean marker: log end %d, want %d", l.LogEndOffset(), leo-3)
	}
}
