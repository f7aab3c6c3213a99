package group

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// BenchmarkLoadPartition replays a partition of 1,000,000 offset commits
// over 10,000 groups (each commits 10 partitions 10 times), as a restart
// or a LoadPartition does.
func BenchmarkLoadPartition(b *testing.B) {
	store := &memStore{}
	c := New(testConfig(), Options{Clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, Store: store})
	offsets := make([]int64, 10)
	groups := 10_000
	if testing.Short() {
		groups = 100 // the CI smoke run only checks that it runs
	}
	for round := range 10 {
		for g := range groups {
			for i := range offsets {
				offsets[i] = int64(round*100 + i)
			}
			c.CommitOffsets(commit(fmt.Sprintf("group-%d", g), "", -1, offsets...))
		}
	}
	recs := replayRecords(store.recs)
	b.ReportMetric(float64(len(recs)), "records")
	b.ResetTimer()
	for range b.N {
		c2 := New(testConfig(), Options{Clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}})
		if _, err := c2.Load(recs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitOffsets: 100 members, each its own group, commit one
// partition at a time concurrently, with a store that is durable at once
// (what the coordinator itself costs, not the fsync).
func BenchmarkCommitOffsets(b *testing.B) {
	benchmarkCommitOffsets(b, New(testConfig(), Options{Clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, Store: discardStore{}}), false)
}

// BenchmarkCommitOffsetsRuntime is BenchmarkCommitOffsets through the
// coordinator runtime's writer to one __consumer_offsets partition in
// memory, durable at once, each member waiting for its commit: what the
// runtime adds, without the fsync.
func BenchmarkCommitOffsetsRuntime(b *testing.B) {
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: 1}
	c := New(testConfig(), Options{Clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, Store: NewOffsetsStore(logs)})
	if _, err := c.LoadAll(); err != nil {
		b.Fatal(err)
	}
	benchmarkCommitOffsets(b, c, true)
	b.ReportMetric(float64(logs.Partition(0).Batches()), "appends")
}

func benchmarkCommitOffsets(b *testing.B, c *Coordinator, wait bool) {
	const members = 100
	var wg sync.WaitGroup
	per := b.N/members + 1
	b.ResetTimer()
	for m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("member-group-%d", m)
			for i := range per {
				_, _, durable := c.CommitOffsets(commit(id, "", -1, int64(i)))
				if wait {
					if err := durable(context.Background()); err != nil {
						b.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(per*members)/b.Elapsed().Seconds(), "commits/s")
}
