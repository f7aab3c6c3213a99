package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func syncerFiles(t *testing.T, dir string, n int) []*os.File {
	t.Helper()
	files := make([]*os.File, n)
	for i := range files {
		f, err := os.Create(filepath.Join(dir, string(rune('a'+i%26))+string(rune('a'+i/26))))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files[i] = f
	}
	return files
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func newTestSyncer(t *testing.T, dir string) *DirSyncer {
	t.Helper()
	s, err := NewDirSyncer(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// syncWhileHeld syncs files[0] alone, held in its sync until release is
// closed, and meanwhile the other files, which must all join the next
// batch; it returns every Sync's error once all have returned.
func syncWhileHeld(t *testing.T, s *DirSyncer, files []*os.File, release chan struct{}) (rest []error, first error) {
	t.Helper()
	firstDone := make(chan error, 1)
	go func() { firstDone <- s.Sync(files[0]) }()
	waitFor(t, "the first sync to start", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.busy })
	rest = make([]error, len(files)-1)
	var wg sync.WaitGroup
	for i, f := range files[1:] {
		wg.Add(1)
		go func() { defer wg.Done(); rest[i] = s.Sync(f) }()
	}
	waitFor(t, "every later caller to join the next batch", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.next != nil && len(s.next.files) == len(files)-1
	})
	close(release)
	first = <-firstDone
	wg.Wait()
	return rest, first
}

// TestDirSyncerBatchesCallersArrivingDuringASync: callers that arrive while
// a sync runs share the next one, a syncfs once there are enough of them;
// a lone caller syncs its own file.
func TestDirSyncerBatchesCallersArrivingDuringASync(t *testing.T) {
	dir := t.TempDir()
	s := newTestSyncer(t, dir)
	release := make(chan struct{})
	var fileBatches [][]*os.File
	var mu sync.Mutex
	var syncfsCalls atomic.Int32
	s.syncFiles = func(files []*os.File) error {
		mu.Lock()
		fileBatches = append(fileBatches, files)
		first := len(fileBatches) == 1
		mu.Unlock()
		if first {
			<-release
		}
		return syncEach(files)
	}
	s.syncFS = func(fd int) error { syncfsCalls.Add(1); return nil }

	files := syncerFiles(t, dir, 2*syncfsMinFiles)
	rest, first := syncWhileHeld(t, s, files, release)
	for _, err := range append(rest, first) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := syncfsCalls.Load(); got != 1 {
		t.Fatalf("%d syncfs calls for a batch of %d files, want 1", got, len(files)-1)
	}
	if len(fileBatches) != 1 || len(fileBatches[0]) != 1 {
		t.Fatalf("file-by-file batches %d, want only the lone first caller's", len(fileBatches))
	}
}

// TestDirSyncerFailureIsStickyForTheDir: a syncfs error fails every later
// sync of the dir, not only the batch that saw it.
func TestDirSyncerFailureIsStickyForTheDir(t *testing.T) {
	dir := t.TempDir()
	s := newTestSyncer(t, dir)
	boom := errors.New("writeback error")
	release := make(chan struct{})
	s.syncFiles = func(files []*os.File) error { <-release; return nil }
	s.syncFS = func(int) error { return boom }
	files := syncerFiles(t, dir, syncfsMinFiles+2)
	rest, first := syncWhileHeld(t, s, files, release)
	if first != nil {
		t.Fatal(first)
	}
	for _, err := range rest {
		if !errors.Is(err, boom) {
			t.Fatalf("batched sync: %v, want the syncfs error", err)
		}
	}
	if err := s.Sync(files[0]); !errors.Is(err, boom) {
		t.Fatalf("a later lone sync: %v, want the sticky syncfs error", err)
	}
}

// TestDirSyncerAfterClose: logs outliving the syncer fsync their own files.
func TestDirSyncerAfterClose(t *testing.T) {
	dir := t.TempDir()
	s, err := NewDirSyncer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range syncerFiles(t, dir, 3) {
		if err := s.Sync(f); err != nil {
			t.Fatal(err)
		}
	}
	var nilSyncer *DirSyncer
	if err := nilSyncer.Sync(syncerFiles(t, t.TempDir(), 1)[0]); err != nil {
		t.Fatal(err)
	}
}

// TestRequestDurableSyncsManyLogsTogether: logs sharing a DirSyncer become
// durable after RequestDurable alone (nothing else kicks a group-commit
// flusher), and requesting all before waiting on any lets their fsyncs
// share a batch.
func TestRequestDurableSyncsManyLogsTogether(t *testing.T) {
	root := t.TempDir()
	syncer := newTestSyncer(t, root)
	var batched atomic.Int32
	syncer.syncFS = func(fd int) error { batched.Add(1); return nil }
	cfg := testConfig()
	cfg.Syncer = syncer
	logs := make([]*Log, 3*syncfsMinFiles)
	last := make([]int64, len(logs))
	for i := range logs {
		logs[i] = openTest(t, filepath.Join(root, fmt.Sprintf("t-%d", i)), cfg)
		defer logs[i].Close()
	}
	for round := 0; round < 20 && batched.Load() == 0; round++ {
		for i, l := range logs {
			last[i] = mustAppend(t, l, makeBatch(t, 2, 1000, "v")).LastOffset
		}
		for i, l := range logs {
			l.RequestDurable(last[i])
		}
		for i, l := range logs {
			waitFor(t, "a requested offset to become durable", func() bool { return l.RecoveryPoint() > last[i] })
		}
	}
	if batched.Load() == 0 {
		t.Fatalf("%d logs requested durability together 20 times and never shared a syncfs", len(logs))
	}
}
