package coordinator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
)

// ErrNotCoordinator: the partition is not loaded here (never loaded,
// unloaded, or its load failed); Kafka answers NOT_COORDINATOR.
var ErrNotCoordinator = errors.New("coordinator: partition not loaded")

type shardStatus int8

const (
	loading shardStatus = iota
	active
	closed
)

// shardCore is the part of a shard that does not depend on its state
// machine's type: the writer, the timers and the lock.
type shardCore struct {
	partition int32
	log       PartitionLog
	state     Shard
	clock     Clock
	logger    *slog.Logger
	maxBytes  int
	// broken is called once a batch could not be made durable: the shard's
	// state may no longer agree with its log, so the runtime reloads it.
	broken func()

	mu     sync.Mutex
	status shardStatus
	// queue holds batches waiting for the one in flight to be durable.
	queue    []*batch
	inFlight *batch
	// writing counts, per key, the records queued or in flight.
	writing  map[string]int
	deferred []func()
	// callsOut counts the deferred calls running.
	callsOut atomic.Int64
	// released are the answers to give once the lock is released.
	released []func()
	timers   map[string]*timer
	// settled is closed and replaced whenever a batch is replayed or
	// fails.
	settled chan struct{}
}

type batch struct {
	Batch
	bytes   int
	waiters []chan<- error
	last    int64
}

func newShardCore(partition int32, log PartitionLog, clock Clock, logger *slog.Logger, maxBytes int) *shardCore {
	return &shardCore{partition: partition, log: log, clock: clock, logger: logger, maxBytes: maxBytes,
		writing: map[string]int{}, timers: map[string]*timer{}, settled: make(chan struct{})}
}

// unlock releases the lock, then runs what was deferred under it and
// gives the answers released under it, in that order.
func (s *shardCore) unlock() {
	deferred, released := s.deferred, s.released
	s.deferred, s.released = nil, nil
	s.callsOut.Add(int64(len(deferred)))
	s.mu.Unlock()
	for _, f := range deferred {
		f()
		s.callsOut.Add(-1)
	}
	for _, f := range released {
		f()
	}
}

func recordsSize(recs []Record) int {
	n := 0
	for _, r := range recs {
		n += len(r.Key) + len(r.Value) + 16
	}
	return n
}

// batchLimit bounds the records of a batch: the partition's own bound
// when its log has one, else the runtime's.
func (s *shardCore) batchLimit() int {
	if l, ok := s.log.(BatchLimiter); ok {
		if n := l.MaxBatchBytes(); n > 0 {
			return n
		}
	}
	return s.maxBytes
}

// enqueue adds records to the shard's next batch and appends it at once
// if no batch is in flight; done (if any) hears the outcome. The caller
// holds the lock.
func (s *shardCore) enqueue(recs []Record, producer *Producer, done chan<- error) {
	size := recordsSize(recs)
	var b *batch
	if n := len(s.queue); n > 0 && producer == nil && !s.queue[n-1].Transactional && s.queue[n-1].bytes+size <= s.batchLimit() {
		b = s.queue[n-1]
	} else {
		b = &batch{Batch: Batch{Producer: NoProducer}}
		if producer != nil {
			b.Producer, b.Transactional = *producer, true
		}
		s.queue = append(s.queue, b)
	}
	b.Records = append(b.Records, recs...)
	b.bytes += size
	if done != nil {
		b.waiters = append(b.waiters, done)
	}
	for _, r := range recs {
		s.writing[string(r.Key)]++
	}
	s.flush()
}

// flush appends the next queued batch when none is in flight. The caller
// holds the lock; appending under it keeps the log in the order of the
// operations.
func (s *shardCore) flush() {
	for s.inFlight == nil && len(s.queue) > 0 && s.status != closed {
		b := s.queue[0]
		s.queue = s.queue[1:]
		last, err := s.log.Append(b.Batch)
		if err != nil {
			s.finish(b, fmt.Errorf("appending to partition %d: %w", s.partition, err))
			continue
		}
		b.last = last
		s.inFlight = b
		go s.awaitDurable(b)
	}
}

// awaitDurable waits until b is on disk, replays it and answers its
// operations, then sends the next batch.
func (s *shardCore) awaitDurable(b *batch) {
	err := s.log.WaitDurable(context.Background(), b.last)
	s.mu.Lock()
	s.inFlight = nil
	if err != nil {
		err = fmt.Errorf("writing partition %d: %w", s.partition, err)
		s.finish(b, err)
		s.failQueued(err)
		if s.status != closed && s.broken != nil {
			s.deferred = append(s.deferred, s.broken)
		}
		s.unlock()
		return
	}
	first := b.last - int64(len(b.Records)) + 1
	for i, r := range b.Records {
		e := Entry{Record: r, Offset: first + int64(i), Producer: b.Producer, Transactional: b.Transactional}
		if rerr := s.state.Replay(e); rerr != nil {
			// The shard wrote a record it cannot read back: a bug.
			s.logger.Error("replaying a record the coordinator wrote", "partition", s.partition, "offset", e.Offset, "err", rerr)
		}
	}
	s.finish(b, nil)
	s.flush()
	s.unlock()
}

// finish forgets b's keys and releases its answers. The caller holds the
// lock.
func (s *shardCore) finish(b *batch, err error) {
	for _, r := range b.Records {
		k := string(r.Key)
		if s.writing[k]--; s.writing[k] <= 0 {
			delete(s.writing, k)
		}
	}
	for _, w := range b.waiters {
		s.released = append(s.released, func() { w <- err })
	}
	close(s.settled)
	s.settled = make(chan struct{})
}

// failQueued answers every queued batch with err. The caller holds the
// lock.
func (s *shardCore) failQueued(err error) {
	queue := s.queue
	s.queue = nil
	for _, b := range queue {
		s.finish(b, err)
	}
}

// close stops the shard: queued batches fail, timers stop, and the batch
// in flight, if any, is still answered when durable. The caller holds the
// lock.
func (s *shardCore) close() {
	s.status = closed
	s.failQueued(ErrNotCoordinator)
	for key := range s.timers {
		s.cancel(key)
	}
}
