package log

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// TestConcurrentAppendReadRetention runs producers, fetchers (plain and
// long-poll), timestamp lookups and retention at once; run it with -race.
func TestConcurrentAppendReadRetention(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := testConfig()
	cfg.SegmentBytes = 2048
	cfg.IndexIntervalBytes = 200
	cfg.RetentionTime = -1
	cfg.RetentionBytes = 8192
	cfg.FileDeleteDelay = time.Minute // fetched slices stay readable after deletion
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()

	var producersDone atomic.Bool
	allAppended := make(chan struct{})
	var wg sync.WaitGroup
	fail := make(chan error, 16)
	report := func(err error) {
		select {
		case fail <- err:
		default:
		}
	}
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func(pid int64) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				b := makeProducerBatch(t, 3, time.Now().UnixMilli(), "payload-payload", pid, 0, int32(i*3))
				res, err := l.Append(b, AppendOptions{LeaderEpoch: 0})
				if err == nil {
					err = l.WaitDurable(ctx, res.LastOffset)
				}
				if err != nil {
					report(err)
					return
				}
			}
		}(int64(p))
	}
	var others sync.WaitGroup
	for r := 0; r < 2; r++ {
		others.Add(1)
		go func() {
			defer others.Done()
			var buf []byte
			next := int64(0)
			for !producersDone.Load() || next < l.HighWatermark() {
				if ctx.Err() != nil {
					report(ctx.Err())
					return
				}
				if next < l.LogStartOffset() {
					next = l.LogStartOffset()
				}
				wctx, c := context.WithTimeout(ctx, 50*time.Millisecond)
				_ = l.WaitForData(wctx, next)
				c()
				var err error
				buf, _, err = l.ReadBytes(buf, next, 1024, true)
				if errors.Is(err, ErrOffsetOutOfRange) {
					continue // retention moved the start past us
				}
				if err != nil {
					report(err)
					return
				}
				sp := record.NewSplitter(buf, 0)
				for {
					b, err := sp.Next()
					if err != nil || b == nil {
						break // a partial tail batch is expected
					}
					if b.LastOffset() < next {
						report(errors.New("read went backwards"))
						return
					}
					next = b.NextOffset()
				}
			}
		}()
	}
	others.Add(1)
	go func() {
		defer others.Done()
		for !producersDone.Load() {
			if _, err := l.DeleteOldSegments(); err != nil {
				report(err)
				return
			}
			if _, _, err := l.OffsetForTimestamp(0); err != nil {
				report(err)
				return
			}
			select { // run again after the next append
			case <-l.AppendSignal():
			case <-allAppended:
			}
		}
	}()
	wg.Wait()
	producersDone.Store(true)
	close(allAppended)
	others.Wait()
	close(fail)
	for err := range fail {
		t.Fatal(err)
	}
	if l.LogEndOffset() != 4*100*3 {
		t.Fatalf("leo %d", l.LogEndOffset())
	}
	if l.LogStartOffset() == 0 || l.Size() > 8192+2048 {
		t.Fatalf("retention did not run: lso %d size %d", l.LogStartOffset(), l.Size())
	}
}
