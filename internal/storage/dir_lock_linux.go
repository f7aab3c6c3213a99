package storage

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// tryLockFile takes an exclusive open-file-description lock on f without
// waiting, and reports held when another holds one. OFD locks conflict
// with the POSIX record locks Java's FileChannel.tryLock takes, so a Kafka
// broker on the dir holds Karst off and the other way round; like flock,
// they belong to the open file, so a second LockLogDir in this process
// fails too, and the kernel drops them when the last descriptor closes.
func tryLockFile(f *os.File) (held bool, err error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	err = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
		return true, nil
	}
	return false, err
}
