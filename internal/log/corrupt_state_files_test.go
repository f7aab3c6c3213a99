package log

import (
	"errors"
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

// A leader-epoch-checkpoint that cannot be parsed fails its log dir, as
// Kafka's CheckpointFileWithFailureHandler does: the log does not open
// (ErrStorage, Kafka's KafkaStorageException) and the dir is reported on
// the failure channel with Kafka's message naming the file. Until
// 2026-12-02 Karst rebuilt the file from the batches with a WARN and
// served on.
func TestMalformedLeaderEpochCheckpointFailsTheLogDir(t *testing.T) {
	for _, c := range []struct{ name, content string }{
		{"garbage", "\x00\x17not a checkpoint\n"},
		{"bad count", "0\n7\n2 0\n"},
		{"bad line", "0\n2\n2 0\n5 x\n"},
		{"negative epoch", "0\n1\n-3 0\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			logDir := t.TempDir()
			dir := filepath.Join(logDir, "t-0")
			cfg := testConfig()
			appendEpochs(t, dir, cfg)
			path := filepath.Join(dir, LeaderEpochCheckpointFile)
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			failures := NewLogDirFailureChannel(1, (&logSink{}).logger())
			cfg.DirFailures = failures
			l, err := Open(dir, cfg, (&logSink{}).logger())
			if err == nil {
				l.Close()
				t.Fatal("the log opened over a malformed leader-epoch-checkpoint")
			}
			if !errors.Is(err, ErrStorage) {
				t.Fatalf("open: %v, want ErrStorage", err)
			}
			select {
			case f := <-failures.Failures():
				if f.Dir != logDir {
					t.Fatalf("failed dir %s, want %s", f.Dir, logDir)
				}
			default:
				t.Fatal("the log dir was not reported failed")
			}
			if !strings.Contains(err.Error(), "Error while reading checkpoint file "+path) {
				t.Fatalf("error %q does not carry Kafka's message", err)
			}
		})
	}
}

// Entries that parse but are not monotonic are assigned one by one as
// Kafka's LeaderEpochFileCache constructor does, each dropping the
// entries it conflicts with, with Kafka's WARN.
func TestOutOfOrderLeaderEpochCheckpointLoadsAsKafkaAssignsIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	cfg := testConfig()
	appendEpochs(t, dir, cfg)
	l, sink := reopenWithCheckpoint(t, dir, cfg, "0\n2\n5 0\n2 6\n")
	defer l.Close()
	if got, want := l.EpochEntries(), []EpochEntry{{2, 6}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("epochs %v, want %v (Kafka: assigning 2@6 truncates 5@0)", got, want)
	}
	if out := sink.String(); !strings.Contains(out, "caused truncation of conflicting entries") {
		t.Fatalf("no WARN of the truncation:\n%s", out)
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
