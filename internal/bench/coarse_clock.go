package bench

import (
	"sync/atomic"
	"time"
)

// coarseClockTick is the resolution of coarseClock: Kafka's record
// timestamps are milliseconds too.
const coarseClockTick = time.Millisecond

// coarseClock is a wall clock read from memory, advanced once per tick by
// one goroutine. The produce loop stamps every record and every promise
// measures a latency: with time.Now that was two clock reads per record,
// about a fifth of the load tool's CPU at 100-byte records on a VM whose
// vDSO clock costs ~50 ns (pprof: time.runtimeNow 21%), CPU taken from the
// broker on a shared machine. A 1 ms tick costs 1,000 wake-ups a second.
type coarseClock struct {
	ns   atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func startCoarseClock() *coarseClock {
	c := &coarseClock{stop: make(chan struct{}), done: make(chan struct{})}
	c.ns.Store(time.Now().UnixNano())
	go c.run()
	return c
}

func (c *coarseClock) run() {
	defer close(c.done)
	t := time.NewTicker(coarseClockTick)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			c.ns.Store(now.UnixNano())
		case <-c.stop:
			return
		}
	}
}

// Now is the time at the last tick (at most about a tick old).
func (c *coarseClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// Since is the time elapsed since t at the last tick, never negative.
func (c *coarseClock) Since(t time.Time) time.Duration {
	return max(0, time.Duration(c.ns.Load()-t.UnixNano()))
}

func (c *coarseClock) Stop() {
	close(c.stop)
	<-c.done
}
