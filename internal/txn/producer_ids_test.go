package txn

import (
	"errors"
	"sync"
	"testing"
)

func TestProducerIDsAreUniqueAcrossBlocks(t *testing.T) {
	var reserved int64
	var calls int
	p := NewProducerIDs(func() (int64, error) {
		calls++
		first := reserved
		reserved += ProducerIDBlockSize
		return first, nil
	})
	seen := map[int64]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 700 {
				id, err := p.Next()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[id] {
					t.Errorf("id %d handed out twice", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 2800 || calls != 3 {
		t.Fatalf("%d ids from %d blocks", len(seen), calls)
	}
}

func TestProducerIDsReportReserveFailure(t *testing.T) {
	p := NewProducerIDs(func() (int64, error) { return 0, errors.New("metadata log unavailable") })
	if _, err := p.Next(); err == nil {
		t.Fatal("no error")
	}
}
