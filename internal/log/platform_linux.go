package log

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncWholeFilesystem is syncfs(2): one device flush for a batch of files.
var syncWholeFilesystem = unix.Syncfs

// reserveBlocks is fallocate(2) in its default mode: the blocks are
// allocated and the file's length is left alone.
func reserveBlocks(f *os.File, off, n int64) error {
	return unix.Fallocate(int(f.Fd()), 0, off, n)
}
