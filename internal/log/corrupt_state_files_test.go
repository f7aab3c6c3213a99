package log

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// appendEpochs writes two batches under leader epoch 2 and one under 5
// and closes the log; it returns the epoch entries Append recorded.
func appendEpochs(t *testing.T, dir string, cfg Config) []EpochEntry {
	t.Helper()
	l := openTest(t, dir, cfg)
	for i, epoch := range []int32{2, 2, 5} {
		if _, err := l.Append(makeBatch(t, 3, int64(i), "v"), AppendOptions{LeaderEpoch: epoch}); err != nil {
			t.Fatal(err)
		}
	}
	want := l.EpochEntries()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

// reopenWithCheckpoint replaces leader-epoch-checkpoint with content and
// opens the log, logging to the returned sink.
func reopenWithCheckpoint(t *testing.T, dir string, cfg Config, content string) (*Log, *logSink) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, LeaderEpochCheckpointFile), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := &logSink{}
	l, err := Open(dir, cfg, sink.logger())
	if err != nil {
		t.Fatal(err)
	}
	return l, sink
}

// A leader-epoch-checkpoint that is garbage, or whose entries are out of
// order, is logged at WARN and rebuilt from the batches' partition leader
// epochs, so OffsetForLeaderEpoch answers from the log, not -1/-1.
func TestCorruptLeaderEpochCheckpointIsRebuiltFromTheLog(t *testing.T) {
	for _, c := range []struct{ name, content string }{
		{"garbage", "\x00\x17not a checkpoint\n"},
		{"out of order", "0\n2\n5 0\n2 6\n"},
		{"bad count", "0\n7\n2 0\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t-0")
			cfg := testConfig()
			want := appendEpochs(t, dir, cfg)
			if !reflect.DeepEqual(want, []EpochEntry{{2, 0}, {5, 6}}) {
				t.Fatalf("epochs as appended: %v", want)
			}
			path := filepath.Join(dir, LeaderEpochCheckpointFile)
			l, sink := reopenWithCheckpoint(t, dir, cfg, c.content)
			defer l.Close()
			if got := l.EpochEntries(); !reflect.DeepEqual(got, want) {
				t.Fatalf("epochs after the corrupt checkpoint: %v, want %v", got, want)
			}
			if epoch, end := l.EndOffsetForEpoch(2); epoch != 2 || end != 6 {
				t.Fatalf("end offset for epoch 2: (%d, %d), want (2, 6)", epoch, end)
			}
			if out := sink.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, path) {
				t.Fatalf("no WARN naming %s:\n%s", path, out)
			}
			if got, err := loadLeaderEpochCache(dir); err != nil || !reflect.DeepEqual(got.entries, want) {
				t.Fatalf("checkpoint rewritten as %v, %v", got, err)
			}
		})
	}
}

// A corrupt producer snapshot is deleted with a WARN naming it and why,
// and the producer state is rebuilt from the log.
func TestCorruptProducerSnapshotIsLogged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	l := openTest(t, dir, cfg)
	mustAppend(t, l, makeProducerBatch(t, 2, 1, "v", 7, 0, 0))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	snapshot := FileName(dir, 2, SnapshotSuffix)
	if err := os.WriteFile(snapshot, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A clean restart loads the snapshot at the log end rather than
	// replaying the recovered segment.
	cfg.CleanShutdown, cfg.RecoveryPoint = true, 2
	sink := &logSink{}
	l, err := Open(dir, cfg, sink.logger())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out := sink.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, snapshot) || !strings.Contains(out, "shorter than its header") {
		t.Fatalf("no WARN naming %s and why:\n%s", snapshot, out)
	}
	// The producer's next sequence is known again, from the log.
	if _, err := l.Append(makeProducerBatch(t, 1, 2, "v", 7, 0, 2), AppendOptions{LeaderEpoch: 0}); err != nil {
		t.Fatalf("next sequence after the rebuild: %v", err)
	}
}

// Entries past the log end (a checkpoint ahead of a truncated log) are
// dropped, as Kafka's truncateFromEnd, with a WARN listing them.
func TestLeaderEpochEntriesPastTheLogEndAreLogged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	appendEpochs(t, dir, cfg)
	l, sink := reopenWithCheckpoint(t, dir, cfg, "0\n2\n2 0\n9 99999\n")
	defer l.Close()
	if got := l.EpochEntries(); !reflect.DeepEqual(got, []EpochEntry{{2, 0}}) {
		t.Fatalf("epochs %v, want [{2 0}]", got)
	}
	if out := sink.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "99999") {
		t.Fatalf("no WARN listing the dropped entry:\n%s", out)
	}
}
