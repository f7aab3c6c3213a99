package server

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// waitGranted fails the test unless the reservation started by go acquire
// is granted within the deadline.
func waitGranted(t *testing.T, got <-chan int64, what string) int64 {
	t.Helper()
	select {
	case n := <-got:
		return n
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was never granted", what)
		return 0
	}
}

// notGranted fails the test if the reservation has been granted; a
// reservation that is queued cannot be granted until a release, so this
// needs no waiting.
func notGranted(t *testing.T, got <-chan int64, what string) {
	t.Helper()
	select {
	case <-got:
		t.Fatalf("%s was granted past the limit", what)
	default:
	}
}

// acquireAsync starts a reservation and returns where its grant arrives,
// once it is queued (or granted).
func acquireAsync(b *byteBudget, n int64) <-chan int64 {
	got := make(chan int64, 1)
	queued := b.waiting.Load()
	go func() {
		granted, _ := b.acquire(n, nil)
		got <- granted
	}()
	// acquire queues or is granted without blocking first.
	deadline := time.Now().Add(10 * time.Second)
	for b.waiting.Load() == queued && len(got) == 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	return got
}

func TestStrictBudgetQueuesWhatDoesNotFitAndGrantsInOrder(t *testing.T) {
	b := newStrictBudget(100)
	first, _ := b.acquire(60, nil)
	big := acquireAsync(b, 50)
	notGranted(t, big, "50 bytes with 60 of 100 held")
	// A small reservation that would fit waits behind the queued one.
	small := acquireAsync(b, 10)
	notGranted(t, small, "a reservation behind a waiting one")
	b.release(first)
	b.release(waitGranted(t, big, "the 50-byte reservation"))
	b.release(waitGranted(t, small, "the 10-byte reservation"))
	if b.used.Load() != 0 || b.waiting.Load() != 0 {
		t.Fatalf("used %d waiting %d after every release", b.used.Load(), b.waiting.Load())
	}
}

func TestStrictBudgetGivesAnOversizedReservationTheWholeBudget(t *testing.T) {
	b := newStrictBudget(100)
	held, _ := b.acquire(1, nil)
	huge := acquireAsync(b, 1000)
	notGranted(t, huge, "an oversized reservation while 1 byte is held")
	b.release(held)
	if n := waitGranted(t, huge, "the oversized reservation"); n != 100 {
		t.Fatalf("oversized reservation granted %d, want the whole 100", n)
	}
	b.release(100)
}

func TestLenientBudgetOvershootsOnceThenWaits(t *testing.T) {
	b := newLenientBudget(100)
	a, _ := b.acquire(99, nil)
	over, _ := b.acquire(500, nil) // 1 byte free: granted whole, as Kafka's non-strict pool
	if over != 500 || b.available() != 100-599 {
		t.Fatalf("granted %d, available %d", over, b.available())
	}
	next := acquireAsync(b, 1)
	notGranted(t, next, "a reservation while the pool is overdrawn")
	b.release(over)
	b.release(waitGranted(t, next, "the reservation after memory returned"))
	b.release(a)
}

func TestAbortedWaitReservesNothing(t *testing.T) {
	b := newStrictBudget(10)
	held, _ := b.acquire(10, nil)
	abort := make(chan struct{})
	done := make(chan bool)
	go func() {
		_, ok := b.acquire(5, abort)
		done <- ok
	}()
	for deadline := time.Now().Add(10 * time.Second); b.waiting.Load() == 0 && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	close(abort)
	if <-done {
		t.Fatal("aborted acquire reported success")
	}
	b.release(held)
	if b.used.Load() != 0 || b.waiting.Load() != 0 {
		t.Fatalf("used %d waiting %d", b.used.Load(), b.waiting.Load())
	}
}

func TestNilBudgetHasNoLimit(t *testing.T) {
	var b *byteBudget
	if n, ok := b.acquire(1<<40, nil); n != 0 || !ok {
		t.Fatalf("nil budget: %d %v", n, ok)
	}
	b.release(0)
}

// Many goroutines taking and returning random amounts must never see more
// than the limit reserved, and every one must finish.
func TestStrictBudgetNeverExceedsItsLimitUnderContention(t *testing.T) {
	b := newStrictBudget(1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var inUse, peak int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				n, _ := b.acquire(int64(1+(g*131+i*17)%700), nil)
				mu.Lock()
				inUse += n
				peak = max(peak, inUse)
				mu.Unlock()
				mu.Lock()
				inUse -= n
				mu.Unlock()
				b.release(n)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reservations stopped being granted")
	}
	if peak > 1000 {
		t.Fatalf("peak %d reserved with a limit of 1000", peak)
	}
	if b.used.Load() != 0 {
		t.Fatalf("used %d after all released", b.used.Load())
	}
}

func BenchmarkBudgetUncontended(b *testing.B) {
	budget := newStrictBudget(64 << 20)
	for range b.N {
		n, _ := budget.acquire(100<<10, nil)
		budget.release(n)
	}
}
