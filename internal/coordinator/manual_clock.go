package coordinator

import (
	"sync"
	"time"
)

// ManualClock is a Clock that moves only when Advance is called, which
// runs the timers that come due, in deadline order, on the caller's
// goroutine: deterministic tests of timers.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers map[uint64]*manualTimer
}

type manualTimer struct {
	at  time.Time
	seq uint64
	f   func()
}

// NewManualClock returns a clock at now.
func NewManualClock(now time.Time) *ManualClock {
	return &ManualClock{now: now, timers: map[uint64]*manualTimer{}}
}

// Now is the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc sets a timer that Advance runs.
func (c *ManualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &manualTimer{at: c.now.Add(d), seq: c.seq, f: f}
	c.timers[t.seq] = t
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.timers[t.seq]
		delete(c.timers, t.seq)
		return ok
	}
}

// Advance moves the clock by d, running each timer as its deadline is
// reached (timers those set run too, if due).
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	for {
		next := c.earliest()
		if next == nil || next.at.After(target) {
			break
		}
		delete(c.timers, next.seq)
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
		c.mu.Lock()
	}
	c.now = target
	c.mu.Unlock()
}

// Pending is how many timers are set.
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

func (c *ManualClock) earliest() *manualTimer {
	var first *manualTimer
	for _, t := range c.timers {
		if first == nil || t.at.Before(first.at) || t.at.Equal(first.at) && t.seq < first.seq {
			first = t
		}
	}
	return first
}
