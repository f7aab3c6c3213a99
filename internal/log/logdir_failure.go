package log

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
)

// LogDirFailure is a log dir that failed and the error that failed it.
type LogDirFailure struct {
	Dir string
	Err error
}

// LogDirFailureChannel is Kafka's: the logs report the log dir whose
// storage failed them (a write, fsync or index reservation that returned an
// error), and the broker takes the next failed dir off the channel to stop
// serving its partitions, or to shut down when it was the last. Each dir is
// reported once; its later failures are only counted by the logs' errors.
type LogDirFailureChannel struct {
	logger *slog.Logger

	mu      sync.Mutex
	offline map[string]bool
	failed  chan LogDirFailure
}

// NewLogDirFailureChannel makes a channel for up to dirs log dirs.
func NewLogDirFailureChannel(dirs int, logger *slog.Logger) *LogDirFailureChannel {
	if logger == nil {
		logger = slog.Default()
	}
	return &LogDirFailureChannel{logger: logger, offline: map[string]bool{}, failed: make(chan LogDirFailure, max(dirs, 1))}
}

// MaybeAddOfflineLogDir reports that dir failed with err, logging msg and
// the cause at ERROR the first time. A nil channel does nothing.
func (c *LogDirFailureChannel) MaybeAddOfflineLogDir(dir, msg string, err error) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.offline[dir] {
		return
	}
	c.offline[dir] = true
	c.logger.Error(msg, "log_dir", dir, "err", err)
	select {
	case c.failed <- LogDirFailure{Dir: dir, Err: err}:
	default: // more dirs failed than the channel was made for
	}
}

// IsOffline reports whether dir has failed.
func (c *LogDirFailureChannel) IsOffline(dir string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offline[dir]
}

// Failures delivers each failed log dir once.
func (c *LogDirFailureChannel) Failures() <-chan LogDirFailure { return c.failed }

// failStorage takes the log offline after a storage error: nothing more is
// appended or acknowledged (every later Append and WaitDurable fails with
// ErrStorage), and its log dir is reported failed. It logs the first
// failure at ERROR with its cause.
func (l *Log) failStorage(op string, err error) {
	f := &l.flush
	f.mu.Lock()
	first := f.err == nil
	if first {
		f.err = err
		if !errors.Is(err, ErrStorage) {
			f.err = fmt.Errorf("%w: %s: %v", ErrStorage, op, err)
		}
		f.offline.Store(true)
	}
	f.mu.Unlock()
	if first {
		l.logger.Error("storage failure; the log is offline", "op", op, "err", err)
	}
	dir := filepath.Dir(l.dir)
	l.dirFailures.MaybeAddOfflineLogDir(dir, fmt.Sprintf("Error while %s of %s in dir %s", op, filepath.Base(l.dir), dir), err)
}

// storageFailure is the error that took the log offline, or nil.
func (l *Log) storageFailure() error {
	f := &l.flush
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Offline reports whether the log stopped serving after a storage
// failure, its own or its log dir's.
func (l *Log) Offline() bool { return l.flush.offline.Load() }

// TakeOffline stops the log serving because its log dir failed (err says
// how): appends, reads and waits fail with ErrStorage from now on, as
// Kafka answers KAFKA_STORAGE_ERROR for every partition of an offline log
// dir; long polls waiting on the log return at once. The dir is not
// reported again.
func (l *Log) TakeOffline(err error) {
	f := &l.flush
	f.mu.Lock()
	if f.err == nil {
		f.err = fmt.Errorf("%w: log dir %s is offline: %v", ErrStorage, filepath.Dir(l.dir), err)
		f.offline.Store(true)
	}
	f.mu.Unlock()
	l.wakeWaiters()
}
