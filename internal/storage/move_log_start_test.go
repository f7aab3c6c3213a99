package storage

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// moveHeldAtSteps starts moving jbod-0 (60 one-record batches in small
// segments, in log dir a) to log dir b, one batch per copy step, and holds
// the copier before each of the step numbers given; release lets it go on
// to the next hold (or to the end).
func moveHeldAtSteps(t *testing.T, holds ...int) (m *Manager, p *Partition, b string, release func()) {
	t.Helper()
	cfg := klog.DefaultConfig()
	cfg.SegmentBytes = 1024
	m, p, _, b = jbodOnTwoDirs(t, cfg)
	appendRecords(t, p, 60)
	held, resume, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(ended) }) // runs before m.Close: a failed test lets the copier go
	steps := 0
	m.hooks = copyHooks{stepBytes: 1, beforeStep: func() {
		if steps++; slices.Contains(holds, steps) {
			select {
			case held <- struct{}{}:
			case <-ended:
				return
			}
			select {
			case <-resume:
			case <-ended:
			}
		}
	}}
	waitHeld := func() {
		select {
		case <-held:
		case <-time.After(20 * time.Second):
			t.Fatal("the copy did not reach its step")
		}
	}
	if err := m.AlterLogDir(p.TopicPartition, b); err != nil {
		t.Fatal(err)
	}
	waitHeld()
	left := len(holds) - 1
	return m, p, b, func() {
		resume <- struct{}{}
		if left > 0 {
			left--
			waitHeld()
		}
	}
}

// jbodOnTwoDirs opens a Manager of two log dirs, a and b, with every
// topic configured cfg, and the partition jbod-0 in a.
func jbodOnTwoDirs(t *testing.T, cfg klog.Config) (m *Manager, p *Partition, a, b string) {
	t.Helper()
	root := t.TempDir()
	a, b = filepath.Join(root, "a"), filepath.Join(root, "b")
	m, err := OpenDirs([]string{a, b}, func(string) klog.Config { return cfg }, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if err := m.Reconcile(specs("jbod", klog.TopicID{7}, 1)); err != nil {
		t.Fatal(err)
	}
	p, _ = m.Get("jbod", 0)
	if p.Dir != a {
		t.Fatalf("jbod-0 in %s, want %s", p.Dir, a)
	}
	return m, p, a, b
}

// movedTo waits until jbod-0 is served from dir.
func movedTo(t *testing.T, m *Manager, dir string) *Partition {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if p, ok := m.Get("jbod", 0); ok && p.Dir == dir {
			return p
		}
		if len(m.Futures()) == 0 {
			if p, ok := m.Get("jbod", 0); ok && p.Dir == dir {
				return p // finished since the first look
			}
			t.Fatal("the move was abandoned")
		}
		if time.Now().After(deadline) {
			t.Fatal("the move did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Retention or DeleteRecords deleting the current log past what a move
// has copied starts the copy again at the log start, as Kafka's future
// replica truncates fully and starts at the current log's start offset;
// until 2026-12-02 the copy's read went out of range and the move was
// abandoned.
func TestMoveStartsAgainWhenTheLogIsDeletedPastTheCopy(t *testing.T) {
	m, p, b, release := moveHeldAtSteps(t, 6) // 5 batches copied
	if _, err := p.Log.DeleteRecords(40); err != nil {
		t.Fatal(err)
	}
	release()
	moved := movedTo(t, m, b)
	if moved.Log.LogStartOffset() != 40 || moved.Log.LogEndOffset() != 60 {
		t.Fatalf("moved log [%d, %d), want [40, 60)", moved.Log.LogStartOffset(), moved.Log.LogEndOffset())
	}
	if first := moved.Log.SegmentBaseOffsets()[0]; first < 5 || first > 40 {
		t.Fatalf("moved log's first segment at %d: the deleted records were kept or the copy did not start at 40", first)
	}
	checkReadsFrom(t, moved.Log, 40, 60)
}

// A log start moved within what was copied moves the copy's start with
// it, so the copy keeps nothing the current log deleted.
func TestMoveFollowsTheLogStartOffset(t *testing.T) {
	m, p, b, release := moveHeldAtSteps(t, 11, 12) // 10 batches copied
	if _, err := p.Log.DeleteRecords(7); err != nil {
		t.Fatal(err)
	}
	release() // one more step
	m.mu.Lock()
	future := m.moves[p.TopicPartition].future
	m.mu.Unlock()
	if future.LogStartOffset() != 7 {
		t.Fatalf("the copy starts at %d, want 7", future.LogStartOffset())
	}
	release()
	moved := movedTo(t, m, b)
	if moved.Log.LogStartOffset() != 7 || moved.Log.LogEndOffset() != 60 {
		t.Fatalf("moved log [%d, %d), want [7, 60)", moved.Log.LogStartOffset(), moved.Log.LogEndOffset())
	}
	checkReadsFrom(t, moved.Log, 7, 60)
}

// checkReadsFrom reads every batch of l from start to end, one per offset.
func checkReadsFrom(t *testing.T, l *klog.Log, start, end int64) {
	t.Helper()
	for off := start; off < end; off++ {
		data, _, err := l.ReadBytes(nil, off, 1, true)
		if err != nil {
			t.Fatalf("reading %d: %v", off, err)
		}
		if got := record.Batch(data).BaseOffset(); got != off {
			t.Fatalf("reading %d: batch at %d", off, got)
		}
	}
}
