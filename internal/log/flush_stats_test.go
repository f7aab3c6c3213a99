package log

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestFlushObserversSeeRoundsUntilStopped(t *testing.T) {
	var a, b atomic.Int64
	stopA := ObserveFlushes(func(d time.Duration) { a.Add(1) })
	stopB := ObserveFlushes(func(d time.Duration) {
		if d < 0 {
			t.Errorf("negative flush duration %v", d)
		}
		b.Add(1)
	})
	reportFlush(time.Now())
	stopA()
	reportFlush(time.Now())
	stopB()
	stopB() // idempotent
	reportFlush(time.Now())
	// At least: flushers of other tests' logs may report too.
	if a.Load() < 1 || b.Load() < 2 || b.Load() <= a.Load() {
		t.Fatalf("observer calls = %d, %d; want 1, 2", a.Load(), b.Load())
	}
}
