package log

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Flush observers see how long every fsync round of every log in the
// process took, for the broker's log flush latency histogram (Kafka's
// LogFlushStats). They are process-wide rather than per log because logs
// are opened deep inside storage; a process normally runs one broker.

type flushObserver struct{ fn func(time.Duration) }

var (
	flushObserversMu sync.Mutex // serialises changes; readers use the pointer
	flushObservers   atomic.Pointer[[]*flushObserver]
)

// ObserveFlushes calls fn with the duration of each fsync round from now
// on, on the flushing goroutine (fn must be quick). The returned function
// stops the calls.
func ObserveFlushes(fn func(took time.Duration)) (stop func()) {
	o := &flushObserver{fn: fn}
	flushObserversMu.Lock()
	defer flushObserversMu.Unlock()
	var next []*flushObserver
	if cur := flushObservers.Load(); cur != nil {
		next = slices.Clone(*cur)
	}
	next = append(next, o)
	flushObservers.Store(&next)
	return func() {
		flushObserversMu.Lock()
		defer flushObserversMu.Unlock()
		cur := flushObservers.Load()
		if cur == nil {
			return
		}
		next := slices.DeleteFunc(slices.Clone(*cur), func(x *flushObserver) bool { return x == o })
		flushObservers.Store(&next)
	}
}

// reportFlush tells the observers a flush that began at started is over;
// flushRound defers it. With no observer it costs one atomic load.
func reportFlush(started time.Time) {
	obs := flushObservers.Load()
	if obs == nil || len(*obs) == 0 {
		return
	}
	took := time.Since(started)
	for _, o := range *obs {
		o.fn(took)
	}
}
