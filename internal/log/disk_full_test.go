//go:build linux

// The disk-full checks mount a tmpfs, which only Linux has.

package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// smallFilesystem mounts a tmpfs of size bytes for the test, so that a
// full disk is real (ENOSPC from write and fallocate, SIGBUS from a store
// to an unbacked page). Without mount privileges the full disk is
// emulated instead: fill then fails every log write and index reservation
// under the directory with ENOSPC, as the kernel would.
func smallFilesystem(t *testing.T, size int) (dir string, fill func(t *testing.T), free func(t *testing.T)) {
	t.Helper()
	dir = t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size))
	if err != nil {
		t.Logf("mounting a %d-byte tmpfs: %v; emulating the full disk with injected ENOSPC", size, err)
		fill = func(t *testing.T) {
			injectFaults(t, dir, func(op storageOp, _ string) error {
				if op == opWriteLog || op == opAllocIndex {
					return syscall.ENOSPC
				}
				return nil
			})
		}
		return dir, fill, func(*testing.T) { faults.Store(nil) }
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	filler := filepath.Join(dir, "filler")
	fill = func(t *testing.T) {
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		chunk := make([]byte, 4096)
		for i := 0; i <= size/len(chunk); i++ {
			if _, err := f.Write(chunk); err != nil {
				if errors.Is(err, syscall.ENOSPC) {
					return
				}
				t.Fatal(err)
			}
		}
		t.Fatalf("wrote %d bytes to a %d-byte filesystem", size+len(chunk), size)
	}
	return dir, fill, func(t *testing.T) {
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
	}
}

// A full disk used to kill the broker with SIGBUS: the index entry of an
// append that still fitted in the .log's last page was stored into a
// sparse page of the memory-mapped index that the filesystem could not
// back, and the restart died the same way rebuilding the index.
func TestFullDiskFailsAppendsCleanlyAndRecovers(t *testing.T) {
	root, fill, free := smallFilesystem(t, 2<<20)
	dir := filepath.Join(root, "t-0")
	cfg := testConfig()
	cfg.SegmentIndexBytes = 1 << 20
	cfg.IndexIntervalBytes = 0 // an index entry for every batch after the first
	failures := NewLogDirFailureChannel(1, testLogger(t))
	cfg.DirFailures = failures
	l := openTest(t, dir, cfg)
	acked := appendAcked(t, l, 1)
	fill(t)

	var err error
	for i := 0; i < 10000 && err == nil; i++ {
		var res AppendResult
		if res, err = l.Append(makeBatch(t, 1, int64(i), "small"), AppendOptions{LeaderEpoch: 0}); err == nil {
			if err = l.WaitDurable(testContext(t), res.LastOffset); err == nil {
				acked = res.LastOffset + 1
			}
		}
	}
	expectOffline(t, l, failures, err, syscall.ENOSPC)
	_ = l.Close() // its snapshot and trims may fail too

	// Still full: recovery rebuilds the indexes, and either manages or
	// fails with an error, never with a crash.
	cfg.RecoveryPoint = 0
	if l, err := Open(dir, cfg, testLogger(t)); err != nil {
		if !errors.Is(err, ErrStorage) && !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
			t.Fatalf("reopening on a full disk: %v, want a storage error", err)
		}
	} else {
		if l.LogEndOffset() < acked {
			t.Fatalf("log end %d on a full disk, acknowledged %d", l.LogEndOffset(), acked)
		}
		_ = l.Close()
	}
	free(t)
	checkReopens(t, dir, cfg, 0, acked)
}

// Where the filesystem has no fallocate, a store to an index page the
// filesystem cannot back faults; the fault must come back as an error.
// The fault here is a store past the end of the file, which the kernel
// answers with SIGBUS as it does a full disk's hole.
func TestIndexStoreFaultIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("", 0, IndexSuffix))
	x, err := openOffsetIndex(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer x.unmapAndClose()
	if err := x.resize(64 << 10); err != nil {
		t.Fatal(err)
	}
	x.unreservable = true
	if err := x.file.Truncate(0); err != nil {
		t.Fatal(err)
	}
	err = x.append(5, 100)
	if !errors.Is(err, ErrStorage) {
		t.Fatalf("store into an unbacked page: %v, want ErrStorage", err)
	}
	if x.count() != 0 {
		t.Fatalf("%d entries after a failed store", x.count())
	}
}
