package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockFile is the file Kafka locks in each log dir so that one process at a
// time uses it.
const LockFile = ".lock"

// ErrLogDirLocked says another process (or another Node in this one) holds
// the log dir.
var ErrLogDirLocked = errors.New("log dir is in use")

// DirLock is the exclusive lock on a log dir, held for the life of the
// process that uses it, as Kafka's FileLock on .lock: two brokers writing
// one dir both acknowledge writes and corrupt each other's logs and
// metadata.
type DirLock struct {
	file *os.File
}

// LockLogDir takes the lock on dir's .lock file without waiting. flock
// locks belong to the open file, so a second LockLogDir in the same process
// fails too, and the kernel releases the lock when the process dies.
func LockLogDir(dir string) (*DirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log dir %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("failed to acquire lock on file %s in %s: a Karst instance in another process or thread is using this directory: %w",
				LockFile, dir, ErrLogDirLocked)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return &DirLock{file: f}, nil
}

// Release gives the lock up; the broker does so once its logs are closed.
func (l *DirLock) Release() error {
	if l == nil || l.file == nil {
		return nil
	}
	err := l.file.Close() // closing the only descriptor drops the flock
	l.file = nil
	return err
}
