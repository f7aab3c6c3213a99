package node

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

// breakages make a log dir unusable at start the ways Kafka's LogManager
// and MetaPropertiesEnsemble meet: it cannot be created, its .lock cannot
// be opened, its meta.properties cannot be read or cannot be written. Each
// returns the start of the ERROR Kafka logs for it. (The tests run as
// root, so permissions stop nothing; a directory or file standing where
// the broker needs the other kind does.)
var breakages = []struct {
	name  string
	apply func(t *testing.T, dir string) string
}{
	{"cannot be created", func(t *testing.T, dir string) string {
		// A file stands where its parent should be.
		if err := os.RemoveAll(filepath.Dir(dir)); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Dir(dir), "")
		return "Failed to create or validate data directory "
	}},
	{"cannot be locked", func(t *testing.T, dir string) string {
		breakLock(t, dir)
		return "Disk error while locking directory "
	}},
	{"meta.properties unreadable", func(t *testing.T, dir string) string {
		replaceWithDir(t, filepath.Join(dir, klog.MetaPropertiesFile))
		return "Error while reading meta.properties file "
	}},
	{"meta.properties cannot be written", func(t *testing.T, dir string) string {
		if err := os.Remove(filepath.Join(dir, klog.MetaPropertiesFile)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		replaceWithDir(t, filepath.Join(dir, klog.MetaPropertiesFile+".tmp"))
		return "Error while writing meta.properties to "
	}},
}

// A log dir that cannot be created, locked or formatted at start is taken
// offline and the broker starts with the others, as Kafka's LogManager
// goes on with its live dirs: new partitions go to the live dir,
// DescribeLogDirs answers KAFKA_STORAGE_ERROR for the failed one, and the
// broker registers only the live dir. Until 2026-12-02 each of these
// stopped the start.
func TestLogDirThatCannotBePreparedAtStartIsTakenOffline(t *testing.T) {
	for _, br := range breakages {
		t.Run(br.name, func(t *testing.T) {
			a, b := twoDirsOneBroken(t, "b")
			want := br.apply(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			logs := newErrorMessages()
			n, cl := startOnDirs(t, logs, a, b)
			if !n.storage.DirOffline(b) || n.storage.DirOffline(a) {
				t.Fatalf("offline: a %v, b %v; want b alone", n.storage.DirOffline(a), n.storage.DirOffline(b))
			}
			if !slices.ContainsFunc(logs.all(), func(m string) bool { return strings.HasPrefix(m, want) }) {
				t.Fatalf("no ERROR %q...: %q", want, logs.all())
			}
			adm := kadm.NewClient(cl)
			if _, err := adm.CreateTopic(ctx, 2, 1, nil, "jbod"); err != nil {
				t.Fatal(err)
			}
			for p := int32(0); p < 2; p++ {
				if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: p, Value: []byte("v")}).FirstErr(); err != nil {
					t.Fatalf("producing to jbod-%d: %v", p, err)
				}
				if _, err := os.Stat(filepath.Join(a, "jbod-"+string(rune('0'+p)))); err != nil {
					t.Fatalf("jbod-%d not in the live dir: %v", p, err)
				}
			}
			all, err := adm.DescribeAllLogDirs(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := all[1][absPath(b)]; !errorsIs(d.Err, kerr.KafkaStorageError) {
				t.Fatalf("DescribeLogDirs of the failed dir: %+v (dirs %v)", d, all[1])
			}
			if reg, ok := n.store.Image().Broker(1); !ok || !slices.Equal(reg.LogDirs, []metadata.UUID{n.dirIDs[a]}) {
				t.Fatalf("broker registration %+v, want the live dir alone", reg)
			}
		})
	}
}

// The metadata log dir (the first of log.dirs) failing at start stops
// the broker, as in Kafka, whatever the other dirs.
func TestMetadataLogDirThatCannotBePreparedStopsTheStart(t *testing.T) {
	for _, br := range breakages {
		t.Run(br.name, func(t *testing.T) {
			a, b := twoDirsOneBroken(t, "a")
			br.apply(t, a)
			cfg := configOn(t, a, newErrorMessages())
			cfg.DataDirs = []string{a, b}
			n, err := Start(cfg)
			if err == nil {
				_ = n.Shutdown(context.Background())
				t.Fatal("the broker started without its metadata log dir")
			}
			if !strings.Contains(err.Error(), "Shutdown broker because the metadata log dir "+a+" has failed") &&
				!strings.Contains(err.Error(), "Encountered I/O error in metadata log directory "+a+". Cannot continue.") {
				t.Fatalf("start: %v", err)
			}
			// Nothing is left locked: b can be used.
			lockB := startOn(t, b, newErrorMessages())
			_ = lockB
		})
	}
}

// twoDirsOneBroken names log dirs a and b under a temp dir, the one to be
// broken (named broken) inside a directory of its own that exists.
func twoDirsOneBroken(t *testing.T, broken string) (a, b string) {
	t.Helper()
	root := t.TempDir()
	a, b = filepath.Join(root, "a"), filepath.Join(root, "b")
	dir := filepath.Join(root, "parent", broken)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if broken == "a" {
		return dir, b
	}
	return a, dir
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// breakLock makes dir's .lock impossible to open the way Kafka 4.4.0 takes
// the dir offline and starts with the others (measured: "Disk error while
// locking directory", the dir's partitions without a leader): a symlink
// into a directory that does not exist. A .lock that is a directory stops
// the start instead (TestLogDirWithANonPartitionDirectoryStopsTheStart).
func breakLock(t *testing.T, dir string) {
	t.Helper()
	lock := filepath.Join(dir, ".lock")
	if err := os.RemoveAll(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "missing", "lock"), lock); err != nil {
		t.Fatal(err)
	}
}

// A directory inside a log dir whose name is not a topic-partition stops
// the start, as Kafka's LogManager.loadLogs does ("Error starting
// LogManager"; Kafka 4.4.0 exits with status 1). That includes a .lock
// that is a directory: Kafka reports the lock failed ("Disk error while
// locking directory") and then, still loading that dir, fails on the
// .lock directory's name. Karst took the dir offline and went on before.
func TestLogDirWithANonPartitionDirectoryStopsTheStart(t *testing.T) {
	for _, c := range []struct{ name, child string }{{"a .lock directory", ".lock"}, {"lost+found", "lost+found"}, {"no partition number", "topic-x"}} {
		t.Run(c.name, func(t *testing.T) {
			a, b := twoDirsOneBroken(t, "b")
			replaceWithDir(t, filepath.Join(b, c.child))
			logs := newErrorMessages()
			cfg := configOn(t, a, logs)
			cfg.DataDirs = []string{a, b}
			n, err := Start(cfg)
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = n.Shutdown(ctx)
				t.Fatalf("started with a directory %q in a log dir", c.child)
			}
			want := "Found directory " + filepath.Join(b, c.child) + ", '" + c.child + "' is not in the form of topic-partition or topic-partition.uniqueId-delete (if marked for deletion)."
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("start error %q, want it to begin %q", err, want)
			}
			if !slices.Contains(logs.all(), "Encountered fatal fault: Error starting LogManager") {
				t.Fatalf("no fatal-fault ERROR: %q", logs.all())
			}
		})
	}
}

// replaceWithDir puts a directory where a file is expected.
func replaceWithDir(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(path, "x"), "")
}
