package storage

import "sync"

// defaultRecoveryThreads is Kafka's num.recovery.threads.per.data.dir.
const defaultRecoveryThreads = 2

// inParallel runs fn(0..n-1) on at most workers goroutines and waits. Opening
// and closing a partition is mostly syscalls (open, mmap, fsync, rename), so
// a few at once keep a start or shutdown with thousands of partitions short,
// as Kafka's recovery threads do.
func inParallel(workers, n int, fn func(i int)) {
	workers = max(1, min(workers, n))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
