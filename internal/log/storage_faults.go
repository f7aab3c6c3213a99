package log

import (
	"sync/atomic"
)

// storageOp names a point where the log touches its files. Tests inject
// faults at these points (see faultInjector); the production path only pays
// an atomic load per operation.
type storageOp int

const (
	opWriteLog   storageOp = iota // write of batches to a segment's .log
	opSyncLog                     // fsync of a segment's .log (and its txnindex)
	opSyncIndex                   // fsync of an offset or time index
	opAllocIndex                  // preallocation of an index file
	opReadLog                     // read of batch headers or bytes from a .log
	opWriteFile                   // write of a checkpoint or snapshot (writeFileAtomic)
)

// faultInjector decides whether op on the file at path fails, and with
// which error (nil: it goes ahead). A failing opWriteLog lands half of its
// bytes first, as a write cut short by a full disk does.
type faultInjector func(op storageOp, path string) error

// faults is the injector in force; nil outside tests.
var faults atomic.Pointer[faultInjector]

// injectedFault is the error faults chose for op on path, if any.
func injectedFault(op storageOp, path string) error {
	if f := faults.Load(); f != nil {
		return (*f)(op, path)
	}
	return nil
}
