package log

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
)

// syncfsMinFiles is the batch size from which a DirSyncer makes one
// syncfs instead of an fsync per file. Each fsync costs a device cache
// flush: on this machine's virtual disk, files of 10 KiB each took
// 0.49-0.51 / 0.83-1.05 / 1.35-2.10 / 3.8-8.5 ms to fsync concurrently for
// 4 / 8 / 16 / 64 files and 0.33-0.39 / 0.48-0.53 / 0.80-0.83 / 1.8-2.1 ms
// with one syncfs (1,000 files: 119-133 ms against 23 ms); 1 and 2 files
// were faster alone. syncfs also writes other programs' dirty data on the
// same filesystem, which a dedicated data disk does not have.
const syncfsMinFiles = 4

// DirSyncer is group commit across the logs of one log dir: logs whose
// flushers need their segment files on disk at the same moment share one
// sync. A caller arriving while a sync runs joins the next batch, whose
// first caller runs it once the running one ends, so a batch grows with
// the load and a lone caller syncs at once, in its own goroutine.
type DirSyncer struct {
	dir *os.File // any fd on the filesystem names it to syncfs
	// syncFS and syncFiles do the syncing (tests replace them).
	// syncFS is nil where the platform has no syncfs: every batch then
	// fsyncs file by file.
	syncFS    func(fd int) error
	syncFiles func([]*os.File) error

	mu     sync.Mutex
	idle   *sync.Cond // broadcast when a running batch ends
	busy   bool       // a batch is syncing
	closed bool       // dir is closed: every batch fsyncs file by file
	// failed is a syncfs error, sticky for every log of the dir: syncfs
	// reports a writeback error once, whichever file of the filesystem it
	// hit, so a log not in that batch could otherwise miss the loss of
	// its own pages (Kafka takes the whole log dir offline on an I/O error).
	failed error
	next   *syncBatch // the batch callers join; nil when none is waiting
}

type syncBatch struct {
	files []*os.File
	done  chan struct{}
	err   error
}

// NewDirSyncer opens dir for the syncer's syncfs calls; Close it when no
// log uses it any more.
func NewDirSyncer(dir string) (*DirSyncer, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	s := &DirSyncer{dir: f, syncFS: syncWholeFilesystem, syncFiles: syncEach}
	s.idle = sync.NewCond(&s.mu)
	return s, nil
}

// Close releases the directory once no batch is syncing; logs still open
// keep working, each fsyncing its own files.
func (s *DirSyncer) Close() error {
	s.mu.Lock()
	for s.busy {
		s.idle.Wait()
	}
	s.closed = true
	s.mu.Unlock()
	return s.dir.Close()
}

// Sync returns once everything written to f before the call is on disk.
// A nil DirSyncer fsyncs f alone.
func (s *DirSyncer) Sync(f *os.File) error {
	if s == nil {
		return f.Sync()
	}
	s.mu.Lock()
	if s.failed != nil {
		s.mu.Unlock()
		return s.failed
	}
	b := s.next
	if b != nil {
		b.files = append(b.files, f)
		s.mu.Unlock()
		<-b.done
		return b.err
	}
	b = &syncBatch{files: []*os.File{f}, done: make(chan struct{})}
	s.next = b
	if !s.busy {
		// Let flushers already runnable join first: a produce request kicks
		// its partitions' flushers in one loop, and the first to run found
		// the syncer idle and fsynced alone (hundreds of one-file batches a
		// second with 1,000 partitions). Costs one yield when none is.
		s.mu.Unlock()
		runtime.Gosched()
		s.mu.Lock()
	}
	for s.busy {
		s.idle.Wait()
	}
	s.next = nil         // later callers start the batch after this one
	if s.failed != nil { // the batch before this one failed the dir
		b.err = s.failed
		s.mu.Unlock()
		close(b.done)
		return b.err
	}
	s.busy = true
	whole := s.syncFS != nil && !s.closed && len(b.files) >= syncfsMinFiles
	s.mu.Unlock()

	if whole {
		// Writes the filesystem's dirty data and metadata and flushes the
		// device once; reports writeback errors since the dir was opened
		// (Linux 5.8+), conservatively including other files'.
		b.err = s.syncFS(int(s.dir.Fd()))
	} else {
		b.err = s.syncFiles(b.files)
	}

	s.mu.Lock()
	if whole && b.err != nil {
		b.err = fmt.Errorf("syncfs of the log dir: %w", b.err)
		s.failed = b.err
	}
	s.busy = false
	s.idle.Broadcast() // the next batch's leader, or Close
	s.mu.Unlock()
	close(b.done)
	return b.err
}

// syncEach fsyncs the files, at once when there are several.
func syncEach(files []*os.File) error {
	if len(files) == 1 {
		return files[0].Sync()
	}
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.Sync()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		// A file closed meanwhile belongs to a deleted segment, which its
		// own caller ignores; it must not fail the others.
		if err != nil && !errors.Is(err, os.ErrClosed) {
			return err
		}
	}
	return nil
}
