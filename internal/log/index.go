package log

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// mmapIndex is the file and mapping shared by the offset and time indexes,
// as Kafka's AbstractIndex: fixed-size big-endian entries, the file
// preallocated to segment.index.bytes (rounded down to a whole entry) while
// its segment is active, and trimmed to the written entries on roll and close.
//
// Ownership: the Log's write lock is held for every mutation (append,
// truncate, resize, close); lookups hold the read lock, so the mapping never
// changes under a reader. entries is atomic only so that cheap accessors
// (isFull, lastEntry) can be read without a lock.
type mmapIndex struct {
	path       string
	file       *os.File
	data       []byte // the mapping; len == file length; nil when the file is empty
	entrySize  int
	entries    atomic.Int64
	baseOffset int64
	// reserved: the first reserved bytes of the file have blocks
	// allocated (index_alloc.go); unreservable: the filesystem has no
	// fallocate, so stores are guarded instead.
	reserved     int64
	unreservable bool
}

func roundDown(n, m int) int { return n / m * m }

// openIndex opens or creates the index file. An existing file's entry count
// is its length divided by the entry size, as Kafka reads it; preallocated
// zeros past the real entries are caught by sanityCheck or by recovery.
func openIndex(path string, baseOffset int64, entrySize int) (*mmapIndex, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	idx := &mmapIndex{path: path, file: f, entrySize: entrySize, baseOffset: baseOffset}
	if err := idx.remap(int(st.Size())); err != nil {
		f.Close()
		return nil, err
	}
	idx.entries.Store(int64(st.Size()) / int64(entrySize))
	return idx, nil
}

// remap maps the first size bytes of the file (size already set on disk).
func (x *mmapIndex) remap(size int) error {
	if x.data != nil {
		if err := syscall.Munmap(x.data); err != nil {
			return err
		}
		x.data = nil
	}
	if size == 0 {
		return nil
	}
	d, err := syscall.Mmap(int(x.file.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap %s: %w", x.path, err)
	}
	// Index pages are touched one entry at a time, never streamed: without
	// this, each first touch of a page of the sparse preallocated file read
	// ahead (and zero-filled) a large folio around it, which with 1,000
	// partitions' indexes was 85% of the broker's CPU while producing.
	if err := unix.Madvise(d, unix.MADV_RANDOM); err != nil {
		_ = syscall.Munmap(d)
		return fmt.Errorf("madvise %s: %w", x.path, err)
	}
	x.data = d
	return nil
}

// resize sets the file length to size rounded down to whole entries
// (preallocation for the active segment) and remaps it.
func (x *mmapIndex) resize(size int) error {
	size = roundDown(size, x.entrySize)
	if n := int(x.entries.Load()) * x.entrySize; size < n {
		size = n
	}
	if size == len(x.data) {
		return nil
	}
	if x.data != nil { // unmap before shrinking so no page points past EOF
		if err := syscall.Munmap(x.data); err != nil {
			return err
		}
		x.data = nil
	}
	if err := x.file.Truncate(int64(size)); err != nil {
		return fmt.Errorf("%w: sizing %s: %v", ErrStorage, x.path, err)
	}
	x.reserved = min(x.reserved, int64(size))
	return x.remap(size)
}

// trim shrinks the file to exactly the written entries.
func (x *mmapIndex) trim() error { return x.resize(int(x.entries.Load()) * x.entrySize) }

func (x *mmapIndex) maxEntries() int { return len(x.data) / x.entrySize }
func (x *mmapIndex) isFull() bool    { return int(x.entries.Load()) >= x.maxEntries() }
func (x *mmapIndex) count() int      { return int(x.entries.Load()) }
func (x *mmapIndex) entry(i int) []byte {
	return x.data[i*x.entrySize : (i+1)*x.entrySize]
}

// truncateEntries drops every entry at index n and later.
func (x *mmapIndex) truncateEntries(n int) {
	if n < x.count() {
		x.entries.Store(int64(n))
	}
}

func (x *mmapIndex) sync() error {
	if err := injectedFault(opSyncIndex, x.path); err != nil {
		return err
	}
	return x.file.Sync()
}

// close trims the file (as Kafka does on close) and releases the mapping.
func (x *mmapIndex) close() error {
	err := x.trim()
	if x.data != nil {
		if e := syscall.Munmap(x.data); err == nil {
			err = e
		}
		x.data = nil
	}
	if e := x.file.Close(); err == nil {
		err = e
	}
	return err
}

// unmapAndClose releases the index without trimming (for deleted segments).
func (x *mmapIndex) unmapAndClose() {
	if x.data != nil {
		_ = syscall.Munmap(x.data)
		x.data = nil
	}
	_ = x.file.Close()
}

// search returns the largest i such that key(i) <= target, or -1.
func (x *mmapIndex) search(target int64, key func(i int) int64) int {
	lo, hi := 0, x.count()-1
	if hi < 0 || key(0) > target {
		return -1
	}
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if key(mid) <= target {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
