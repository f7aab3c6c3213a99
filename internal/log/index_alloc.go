package log

import (
	"errors"
	"fmt"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// Index files are memory-mapped and written through the mapping, and the
// active segment's are preallocated sparse (a truncate, as Kafka's
// setLength). A store to a hole the filesystem cannot back (a full disk)
// is not an error a write can return: the kernel raises SIGBUS and the Go
// runtime kills the process. So the blocks under the entries about to be
// written are reserved with fallocate(2) first, a chunk at a time, where a
// full disk is the ordinary ENOSPC. Reserving the whole preallocation at
// once would hold segment.index.bytes (10 MiB) twice per partition on disk.
// Filesystems without fallocate keep the sparse file, and their stores are
// guarded by debug.SetPanicOnFault instead (guardedStore).

// indexReserveChunk is how much of an index is reserved past its entries
// at a time: 8,192 offset entries, one per index.interval.bytes (4 KiB) of
// records, so one fallocate per 32 MiB appended.
const indexReserveChunk = 64 << 10

// fallocate reserves [off, off+n) of f without changing its length (the
// range lies inside it); tests replace it to reach the fallback. Where the
// platform has no such call (reserveBlocks returns EOPNOTSUPP), the index
// keeps its truncate-made length and its stores are guarded.
var fallocate = reserveBlocks

// reserve makes sure the blocks under the first n entries are allocated,
// so that storing them cannot fault.
func (x *mmapIndex) reserve(n int) error {
	end := min(int64(n)*int64(x.entrySize), int64(len(x.data)))
	if end <= x.reserved || x.unreservable {
		return nil
	}
	if err := injectedFault(opAllocIndex, x.path); err != nil {
		return fmt.Errorf("%w: reserving index %s: %v", ErrStorage, x.path, err)
	}
	upTo := min(int64(len(x.data)), max(end, x.reserved+indexReserveChunk))
	err := fallocate(x.file, x.reserved, upTo-x.reserved)
	switch {
	case err == nil:
		x.reserved = upTo
		return nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
		x.unreservable = true
		return nil
	default:
		return fmt.Errorf("%w: reserving index %s up to %d bytes: %v", ErrStorage, x.path, upTo, err)
	}
}

// guardedStore runs store, which writes entry i into the mapping after
// reserving its blocks. Where they could not be reserved, a fault in store
// (SIGBUS on a full disk) becomes an ErrStorage instead of the end of the
// process.
func (x *mmapIndex) guardedStore(i int, store func(e []byte)) (err error) {
	if err := x.reserve(i + 1); err != nil {
		return err
	}
	if !x.unreservable {
		store(x.entry(i))
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if _, fault := r.(interface{ Addr() uintptr }); !fault {
			panic(r)
		}
		err = fmt.Errorf("%w: writing index %s through its mapping: %v", ErrStorage, x.path, r)
	}()
	store(x.entry(i))
	return nil
}
