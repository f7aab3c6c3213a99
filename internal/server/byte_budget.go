package server

import (
	"sync"
	"sync/atomic"
)

// byteBudget hands out reservations of bytes against a limit shared by
// every connection. Taking and returning a reservation that fits is two
// atomic operations; one that does not fit waits in arrival order, so a
// large reservation is not starved by a stream of small ones: while anyone
// waits, newcomers queue behind them.
//
// A strict budget grants a reservation only when it fits whole (one larger
// than the limit is cut to the limit, so it waits for the budget to be
// wholly free and takes all of it). A lenient one grants any reservation
// while some of the limit is unused and may overshoot by that reservation,
// as Kafka's SimpleMemoryPool does for queued.max.request.bytes.
//
// A nil *byteBudget has no limit.
type byteBudget struct {
	limit  int64
	strict bool

	used    atomic.Int64
	waiting atomic.Int32 // len(queue), read without mu on the fast path

	mu    sync.Mutex
	queue []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once granted
}

func newStrictBudget(limit int64) *byteBudget  { return &byteBudget{limit: limit, strict: true} }
func newLenientBudget(limit int64) *byteBudget { return &byteBudget{limit: limit} }

// fits reports whether n more bytes may be granted when prior are in use.
func (b *byteBudget) fits(prior, n int64) bool {
	if b.strict {
		return prior+n <= b.limit
	}
	return prior < b.limit
}

// acquire reserves n bytes, waiting until they are granted or abort is
// closed. It returns the bytes to give back to release (n, or the limit
// when n is larger and the budget strict) and false when aborted, having
// reserved nothing.
func (b *byteBudget) acquire(n int64, abort <-chan struct{}) (int64, bool) {
	if b == nil || n <= 0 {
		return 0, true
	}
	if b.strict {
		n = min(n, b.limit)
	}
	if b.waiting.Load() == 0 {
		if after := b.used.Add(n); b.fits(after-n, n) {
			return n, true
		}
		b.used.Add(-n) // the wait below grants whoever this briefly kept out
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, w)
	b.waiting.Add(1)
	b.grantLocked()
	b.mu.Unlock()
	select {
	case <-w.ready:
		return n, true
	case <-abort:
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, q := range b.queue {
			if q == w {
				b.queue = append(b.queue[:i], b.queue[i+1:]...)
				b.waiting.Add(-1)
				b.grantLocked() // the head may have changed
				return 0, false
			}
		}
		// Granted meanwhile: hand it back.
		b.used.Add(-n)
		b.grantLocked()
		return 0, false
	}
}

// release gives back n bytes that acquire granted.
func (b *byteBudget) release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.used.Add(-n)
	// A waiter registers (waiting, then used) in the opposite order from
	// this (used, then waiting), so one of the two sees the other's write.
	if b.waiting.Load() > 0 {
		b.mu.Lock()
		b.grantLocked()
		b.mu.Unlock()
	}
}

// grantLocked grants queued reservations from the head while they fit.
func (b *byteBudget) grantLocked() {
	for len(b.queue) > 0 {
		w := b.queue[0]
		if after := b.used.Add(w.n); !b.fits(after-w.n, w.n) {
			b.used.Add(-w.n)
			return
		}
		b.queue[0] = nil
		b.queue = b.queue[1:]
		b.waiting.Add(-1)
		close(w.ready)
	}
}

// available is the limit less the bytes reserved; it is negative while a
// lenient budget overshoots.
func (b *byteBudget) available() int64 { return b.limit - b.used.Load() }
