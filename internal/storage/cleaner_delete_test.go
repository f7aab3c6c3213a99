package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
)

// A compacted topic deleted while a pass cleans it (Kafka's asyncDelete:
// abortCleaning, updateCheckpoints without it): the deletion waits for the
// pass it aborts, the partition is neither uncleanable nor left in the
// cleaner-offset-checkpoint, and a topic created again under the name is
// cleaned from its start.
func TestDeletingATopicAbortsItsCleaningPass(t *testing.T) {
	cfg := klog.DefaultConfig()
	cfg.SegmentBytes = 300
	cfg.SegmentIndexBytes = 4096
	cfg.FileDeleteDelay = 0
	cfg.Compaction = klog.CompactionConfig{Compact: true, MinCleanableDirtyRatio: 0.01, DeleteRetention: time.Hour}
	dir := t.TempDir()
	m, err := OpenDirs([]string{dir}, func(string) klog.Config { return cfg }, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	write := func(id klog.TopicID) klog.TopicPartition {
		if err := m.Reconcile(specs("gone", id, 1)); err != nil {
			t.Fatal(err)
		}
		p, _ := m.Get("gone", 0)
		for i := 0; i < 40; i++ {
			if _, err := p.Log.Append(keyed(t, fmt.Sprintf("k%d", i%5), fmt.Sprintf("v%d", i)), klog.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		return p.TopicPartition
	}
	tp := write(klog.TopicID{1})
	c := m.NewCleaner(CleanerConfig{Enable: true, Threads: 1, DedupeBufferBytes: 1 << 20, LoadFactor: 0.9})
	ctx := context.Background()
	if !c.CleanFilthiest(ctx) {
		t.Fatal("the first pass cleaned nothing")
	}
	if off, ok := cleanerCheckpoint(t, dir, tp); !ok || off <= 0 {
		t.Fatalf("after the first pass the checkpoint holds %d (%v)", off, ok)
	}
	p, _ := m.Get("gone", 0)
	for i := 40; i < 80; i++ {
		if _, err := p.Log.Append(keyed(t, fmt.Sprintf("k%d", i%5), fmt.Sprintf("v%d", i)), klog.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// A pass throttled to 100 bytes a second: still running when the
	// topic is deleted.
	passDone := startThrottledPass(t, c, tp)
	if err := m.Reconcile(nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-passDone:
	default:
		t.Fatal("the topic's deletion returned while a pass on it was still running")
	}
	c.limiter = nil
	if _, err := os.Stat(filepath.Join(dir, tp.String())); !os.IsNotExist(err) {
		t.Fatalf("the deleted partition's directory: %v", err)
	}
	if st := c.Status(); len(st.Uncleanable) != 0 || st.UncleanablePartitions[dir] != 0 {
		t.Fatalf("the deleted partition is marked uncleanable: %v", st.Uncleanable)
	}
	if off, ok := cleanerCheckpoint(t, dir, tp); ok {
		t.Fatalf("the cleaner-offset-checkpoint still holds the deleted partition at %d", off)
	}

	// The same name again, another topic id: cleaned from offset 0.
	tp = write(klog.TopicID{2})
	if !c.CleanFilthiest(ctx) {
		t.Fatal("the recreated topic was not cleaned")
	}
	p, _ = m.Get("gone", 0)
	bases := p.Log.SegmentBaseOffsets()
	if off, ok := cleanerCheckpoint(t, dir, tp); !ok || off != bases[len(bases)-1] {
		t.Fatalf("the recreated topic cleaned to %d (%v), its active segment starts at %d", off, ok, bases[len(bases)-1])
	}
	if got := latestValues(t, p.Log); len(got) != 5 || got["k4"] != "v39" {
		t.Fatalf("the recreated topic holds %v", got)
	}
}
