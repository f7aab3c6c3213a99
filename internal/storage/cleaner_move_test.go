package storage

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/time/rate"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// latestValues reads l from its start to its end: each key's last value.
func latestValues(t *testing.T, l *klog.Log) map[string]string {
	t.Helper()
	out := map[string]string{}
	for off := l.LogStartOffset(); off < l.LogEndOffset(); {
		data, _, err := l.ReadBytes(nil, off, 1<<20, true)
		if err != nil {
			t.Fatalf("reading %d: %v", off, err)
		}
		sp := record.NewSplitter(data, 0)
		for {
			b, err := sp.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			recs, err := b.Records(nil, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			rr := record.NewRecordReader(recs, b.RecordCount())
			var r record.Record
			for {
				if err := rr.Next(&r); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				out[string(r.Key)] = string(r.Value)
			}
			off = b.LastOffset() + 1
		}
	}
	return out
}

// startThrottledPass starts a pass of c throttled to 100 bytes a second
// and returns once it runs on tp; the channel gets its result.
func startThrottledPass(t *testing.T, c *Cleaner, tp klog.TopicPartition) <-chan bool {
	t.Helper()
	c.limiter = rate.NewLimiter(100, 100)
	passDone := make(chan bool, 1)
	go func() { passDone <- c.CleanFilthiest(context.Background()) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.mu.Lock()
		running := c.inProgress[tp]
		c.mu.Unlock()
		if running {
			return passDone
		}
		if time.Now().After(deadline) {
			t.Fatal("the throttled pass did not start")
		}
		time.Sleep(time.Millisecond)
	}
}

func cleanerCheckpoint(t *testing.T, dir string, tp klog.TopicPartition) (int64, bool) {
	t.Helper()
	offsets, err := klog.ReadOffsetCheckpoint(filepath.Join(dir, CleanerOffsetCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	off, ok := offsets[tp]
	return off, ok
}

// A compacted partition moved to another log dir while the cleaner runs
// (Kafka's abortAndPauseCleaning before the future replica, resumeCleaning
// after replaceCurrentWithFutureLog): the pass in progress is aborted when
// the move starts and leaves nothing behind, the cleaner skips the
// partition while it is copied, the cleaned offset follows it into the new
// dir's cleaner-offset-checkpoint, every key's latest value survives, and
// cleaning goes on in the new dir.
func TestCleanerPausesWhileAPartitionMovesBetweenLogDirs(t *testing.T) {
	cfg := klog.DefaultConfig()
	cfg.SegmentBytes = 300
	cfg.SegmentIndexBytes = 4096
	cfg.FileDeleteDelay = 0
	cfg.Compaction = klog.CompactionConfig{Compact: true, MinCleanableDirtyRatio: 0.01, DeleteRetention: time.Hour}
	m, p, a, b := jbodOnTwoDirs(t, cfg)
	tp := p.TopicPartition
	want := map[string]string{}
	write := func(from, to int) {
		for i := from; i < to; i++ {
			k, v := fmt.Sprintf("k%d", i%5), fmt.Sprintf("v%d", i)
			if _, err := p.Log.Append(keyed(t, k, v), klog.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
			want[k] = v
		}
	}
	write(0, 40)
	c := m.NewCleaner(CleanerConfig{Enable: true, Threads: 1, DedupeBufferBytes: 1 << 20, LoadFactor: 0.9})
	ctx := context.Background()
	if !c.CleanFilthiest(ctx) {
		t.Fatal("the first pass cleaned nothing")
	}
	cleaned, ok := cleanerCheckpoint(t, a, tp)
	if !ok || cleaned <= 0 {
		t.Fatalf("after the first pass the checkpoint of %s holds %d (%v)", a, cleaned, ok)
	}
	write(40, 80)

	// A pass throttled to 100 bytes a second: still reading when the move
	// starts.
	passDone := startThrottledPass(t, c, tp)
	duringMove := make(chan bool, 1)
	m.hooks = copyHooks{beforeStep: func() {
		select {
		case duringMove <- c.CleanFilthiest(ctx):
		default:
		}
	}}
	if err := m.AlterLogDir(tp, b); err != nil {
		t.Fatal(err)
	}
	// AlterLogDir returns once the pass it aborted has ended.
	select {
	case picked := <-passDone:
		if !picked {
			t.Fatal("the throttled pass reported nothing to clean")
		}
	default:
		t.Fatal("AlterLogDir returned while a pass on the partition was still running")
	}
	if off, _ := cleanerCheckpoint(t, a, tp); off != cleaned {
		t.Fatalf("the aborted pass moved the checkpoint from %d to %d", cleaned, off)
	}
	if left, _ := filepath.Glob(filepath.Join(p.Log.Dir(), "*"+klog.CleanedSuffix)); len(left) != 0 {
		t.Fatalf("the aborted pass left %v", left)
	}
	moved := movedTo(t, m, b)
	select {
	case picked := <-duringMove:
		if picked {
			t.Fatal("the cleaner cleaned the partition while it was being moved")
		}
	default:
		t.Fatal("the copier never asked the cleaner")
	}
	if _, ok := cleanerCheckpoint(t, a, tp); ok {
		t.Fatalf("%s's cleaner checkpoint still lists the moved partition", a)
	}
	if off, ok := cleanerCheckpoint(t, b, tp); !ok || off != cleaned {
		t.Fatalf("%s's cleaner checkpoint holds %d (%v), want the cleaned offset %d carried over", b, off, ok, cleaned)
	}
	if got := latestValues(t, moved.Log); !maps.Equal(got, want) {
		t.Fatalf("after the move the log holds %v, want %v", got, want)
	}

	c.limiter = nil
	size := moved.Log.Size()
	if !c.CleanFilthiest(ctx) {
		t.Fatal("cleaning did not resume after the move")
	}
	if off, _ := cleanerCheckpoint(t, b, tp); off <= cleaned {
		t.Fatalf("after the move the pass left %s's checkpoint at %d, want past %d", b, off, cleaned)
	}
	if moved.Log.Size() >= size {
		t.Fatalf("the pass in the new dir kept %d of %d bytes", moved.Log.Size(), size)
	}
	if got := latestValues(t, moved.Log); !maps.Equal(got, want) {
		t.Fatalf("after cleaning in the new dir the log holds %v, want %v", got, want)
	}
	if st := c.Status(); len(st.Uncleanable) != 0 {
		t.Fatalf("uncleanable %v", st.Uncleanable)
	}
}
