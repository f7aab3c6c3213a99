package log

import "context"

// Long-poll support: a fetch that must wait for data parks on a channel
// that the next append (or Close) closes. The channel is created only when
// someone asks for it, so appends with no waiters pay one mutex round.

// AppendSignal returns a channel that is closed by the next successful
// append, by Close or by the log going offline. Take the channel first,
// then check the offsets, then wait: that order cannot miss an append.
func (l *Log) AppendSignal() <-chan struct{} {
	l.notifyMu.Lock()
	defer l.notifyMu.Unlock()
	if l.closed.Load() || l.flush.offline.Load() {
		// Not kept: Close (or a later wake) must not close it again.
		done := make(chan struct{})
		close(done)
		return done
	}
	if l.notify == nil {
		l.notify = make(chan struct{})
	}
	return l.notify
}

func (l *Log) wakeWaiters() {
	l.notifyMu.Lock()
	if l.notify != nil {
		close(l.notify)
		l.notify = nil
	}
	l.notifyMu.Unlock()
}

// WaitForData blocks until the high watermark passes offset (there is a
// record at offset or later to read), the log closes or goes offline, or
// ctx ends.
func (l *Log) WaitForData(ctx context.Context, offset int64) error {
	for {
		ch := l.AppendSignal()
		if l.HighWatermark() > offset {
			return nil
		}
		if l.closed.Load() {
			return ErrClosed
		}
		if l.flush.offline.Load() {
			return l.storageFailure()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
