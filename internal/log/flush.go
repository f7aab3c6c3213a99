package log

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// flusher is the log's single fsync goroutine: group commit.
//
// Appends only write to the page cache. A caller that needs durability
// calls WaitDurable, which kicks the flusher and parks on the current
// round's channel. The flusher snapshots the log end offset, fsyncs every
// segment that holds unsynced bytes, publishes durable = that offset and
// closes the round's channel. Appends that arrive during an fsync are all
// covered by the next one, so N concurrent producers cost about two fsyncs,
// not N.
//
// An fsync error is sticky (the page cache state after a failed fsync is
// unknown): every later WaitDurable fails with ErrStorage.
type flusher struct {
	durable atomic.Int64 // every offset below this is on disk

	mu    sync.Mutex
	round chan struct{} // closed when the current round finishes
	err   error         // sticky storage failure
	// offline: err is set; Append reads it without taking mu.
	offline atomic.Bool

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	last time.Time // when the last round finished (flusher goroutine only)
}

func (l *Log) startFlusher() {
	f := &l.flush
	f.round = make(chan struct{})
	f.kick = make(chan struct{}, 1)
	f.stop = make(chan struct{})
	f.done = make(chan struct{})
	f.last = l.now()
	go l.flushLoop()
}

func (l *Log) stopFlusher() error {
	close(l.flush.stop)
	<-l.flush.done
	l.flush.mu.Lock()
	defer l.flush.mu.Unlock()
	return l.flush.err
}

func (l *Log) kickFlusher() {
	select {
	case l.flush.kick <- struct{}{}:
	default: // a round is already requested; it will cover this append too
	}
}

func (l *Log) flushLoop() {
	f := &l.flush
	defer close(f.done)
	var tick <-chan time.Time
	if l.durability == PageCache && l.flushInterval < 365*24*time.Hour {
		t := time.NewTicker(min(l.flushInterval, time.Second))
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-f.kick:
		case <-tick:
			if l.now().Sub(f.last) < l.flushInterval {
				continue
			}
		case <-f.stop:
			_ = l.flushRound()
			return
		}
		_ = l.flushRound()
	}
}

// flushRound makes everything appended so far durable.
func (l *Log) flushRound() error {
	defer reportFlush(time.Now())
	f := &l.flush
	l.mu.Lock()
	target := l.logEndOffset.Load()
	rolled := l.toSync
	l.toSync = nil
	active := l.active()
	dirDirty := l.dirDirty
	l.dirDirty = false
	l.unflushedMessages = 0
	l.mu.Unlock()

	var err error
	for _, s := range rolled {
		if e := s.sync(); e != nil && err == nil {
			err = e
		}
		if e := s.syncIndexes(); e != nil && err == nil {
			err = e
		}
	}
	if e := active.syncWith(l.syncer); e != nil && err == nil {
		err = e
	}
	if dirDirty {
		if e := syncDir(l.dir); e != nil && err == nil {
			err = e
		}
	}
	f.mu.Lock()
	failed := f.err != nil
	f.mu.Unlock()
	if err == nil && !failed && target > f.durable.Load() {
		f.durable.Store(target)
	}
	f.last = l.now()
	if err != nil {
		l.failStorage("flushing "+l.dir, err)
	}
	f.mu.Lock()
	close(f.round)
	f.round = make(chan struct{})
	f.mu.Unlock()
	return err
}

// RequestDurable starts making every offset <= offset durable without
// waiting: a request that wrote to many partitions kicks all their
// flushers first, so their fsyncs run together (and share a DirSyncer
// batch) instead of one partition's after another's.
func (l *Log) RequestDurable(offset int64) {
	if l.durability != PageCache && l.flush.durable.Load() <= offset {
		l.kickFlusher()
	}
}

// WaitDurable blocks until every offset <= offset is on disk (group commit)
// or ctx ends. In PageCache mode it returns at once, as Kafka acknowledges
// from the page cache.
func (l *Log) WaitDurable(ctx context.Context, offset int64) error {
	if l.durability == PageCache {
		return nil
	}
	f := &l.flush
	for {
		if f.durable.Load() > offset {
			return nil
		}
		f.mu.Lock()
		round, err := f.round, f.err
		f.mu.Unlock()
		if err != nil {
			return err
		}
		if f.durable.Load() > offset {
			return nil
		}
		if l.closed.Load() {
			select {
			case <-f.done:
				if f.durable.Load() > offset {
					return nil
				}
				return ErrClosed
			default:
			}
		}
		l.kickFlusher()
		select {
		case <-round:
		case <-f.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Flush forces an fsync of everything appended so far and waits for it.
func (l *Log) Flush(ctx context.Context) error {
	if l.closed.Load() {
		return ErrClosed
	}
	f := &l.flush
	f.mu.Lock()
	round := f.round
	f.mu.Unlock()
	// The round in progress may have snapshotted the end offset already;
	// wait for it and then for one more.
	for i := 0; i < 2; i++ {
		l.kickFlusher()
		select {
		case <-round:
		case <-f.done:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
		f.mu.Lock()
		round = f.round
		err := f.err
		f.mu.Unlock()
		if err != nil {
			return err
		}
		if f.durable.Load() >= l.LogEndOffset() {
			return nil
		}
	}
	return nil
}
