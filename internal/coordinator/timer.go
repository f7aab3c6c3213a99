package coordinator

import (
	"time"
)

// Clock is where the runtime reads the time and sets its timers; tests
// use a ManualClock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; stop cancels it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (SystemClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// timer is one keyed timer of a shard: Kafka's CoordinatorTimer entry.
type timer struct {
	deadline time.Time
	op       TimerOp
	stop     func() bool
}

// schedule sets key's timer, replacing any. The caller holds the lock.
func (s *shardCore) schedule(key string, d time.Duration, op TimerOp) {
	s.cancel(key)
	if s.status == closed {
		return
	}
	t := &timer{deadline: s.clock.Now().Add(d), op: op}
	s.timers[key] = t
	if s.status == active {
		s.arm(key, t)
	}
}

func (s *shardCore) arm(key string, t *timer) {
	t.stop = s.clock.AfterFunc(t.deadline.Sub(s.clock.Now()), func() { s.fire(key, t) })
}

// armAll starts the timers scheduled while loading. The caller holds the
// lock.
func (s *shardCore) armAll() {
	for key, t := range s.timers {
		s.arm(key, t)
	}
}

// cancel stops key's timer. The caller holds the lock.
func (s *shardCore) cancel(key string) {
	if t, ok := s.timers[key]; ok {
		if t.stop != nil {
			t.stop()
		}
		delete(s.timers, key)
	}
}

// fire runs t's operation on the shard, unless t was cancelled or
// replaced since it was set.
func (s *shardCore) fire(key string, t *timer) {
	s.mu.Lock()
	defer s.unlock()
	if s.timers[key] != t || s.status != active {
		return
	}
	delete(s.timers, key)
	recs, err := t.op()
	if err != nil {
		s.logger.Warn("a coordinator timer failed", "partition", s.partition, "timer", key, "err", err)
		return
	}
	if len(recs) > 0 {
		s.enqueue(recs, nil, nil)
	}
}
