package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// LockLogDir takes the lock on dir's .lock file without waiting (see
// tryLockFile for the kind of lock); the kernel releases it when the
// process dies. A lock another process or Node holds is ErrLogDirLocked,
// which stops the start as in Kafka; any other error is the dir's.
func LockLogDir(dir string) (*DirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log dir %s: %w", dir, err)
	}
	held, err := tryLockFile(f)
	switch {
	case held:
		f.Close()
		return nil, fmt.Errorf("failed to acquire lock on file %s in %s: a Karst or Kafka instance in another process or thread is using this directory: %w",
			LockFile, dir, ErrLogDirLocked)
	case err != nil:
		f.Close()
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
