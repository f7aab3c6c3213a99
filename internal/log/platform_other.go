//go:build !linux

package log

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncWholeFilesystem is nil: only Linux has syncfs, so a DirSyncer
// fsyncs each file of a batch. On darwin os.File.Sync is fcntl
// F_FULLFSYNC, which flushes the drive's cache as Linux's fsync does.
var syncWholeFilesystem func(fd int) error

// reserveBlocks reports EOPNOTSUPP: darwin's F_PREALLOCATE allocates from
// the end of the file, not a range inside it, so an index keeps the sparse
// length its ftruncate set and the stores into it are guarded instead.
func reserveBlocks(*os.File, int64, int64) error {
	return unix.EOPNOTSUPP
}
