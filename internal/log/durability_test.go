package log

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

func TestGroupCommitConcurrent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := testConfig()
	cfg.SegmentBytes = 4096 // rolls while producers run
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	const producers, perProducer = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perProducer; i++ {
				res, err := l.Append(makeBatch(t, 2, 1000, "v"), AppendOptions{LeaderEpoch: -1})
				if err == nil {
					err = l.WaitDurable(ctx, res.LastOffset)
				}
				if err == nil && l.RecoveryPoint() <= res.LastOffset {
					t.Errorf("acknowledged offset %d above recovery point %d", res.LastOffset, l.RecoveryPoint())
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// Readers run alongside.
	stop := make(chan struct{})
	var rwg sync.WaitGroup
	for r := 0; r < 2; r++ {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			var buf []byte
			for {
				select {
				case <-stop:
					return
				default:
				}
				hw := l.HighWatermark()
				if hw == 0 {
					continue
				}
				var err error
				buf, _, err = l.ReadBytes(buf, hw/2, 4096, true)
				if err != nil {
					errs <- err
					return
				}
				if b, _, err := record.ParseBatch(buf, 0); err != nil || b.BaseOffset() > hw/2 || b.LastOffset() < hw/2 {
					t.Errorf("read at %d returned bad batch: %v", hw/2, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if l.LogEndOffset() != producers*perProducer*2 {
		t.Fatalf("leo %d", l.LogEndOffset())
	}
	if len(readAll(t, l, 0)) != producers*perProducer {
		t.Fatal("batches lost")
	}
}

func TestPageCacheMode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := testConfig()
	cfg.Durability = PageCache
	cfg.FlushMessages = 4
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	res := mustAppend(t, l, makeBatch(t, 1, 1, "v"))
	if err := l.WaitDurable(ctx, res.LastOffset); err != nil {
		t.Fatal(err)
	}
	if l.RecoveryPoint() != 0 {
		t.Fatal("page cache mode flushed below flush.messages")
	}
	mustAppend(t, l, makeBatch(t, 3, 1, "v")) // reaches flush.messages
	for l.RecoveryPoint() != 4 {
		select {
		case <-ctx.Done():
			t.Fatalf("flush.messages did not flush; recovery point %d", l.RecoveryPoint())
		case <-time.After(time.Millisecond):
		}
	}
}

func TestFlushMs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := testConfig()
	cfg.Durability = PageCache
	cfg.FlushInterval = 20 * time.Millisecond
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), cfg)
	defer l.Close()
	mustAppend(t, l, makeBatch(t, 1, 1, "v"))
	for l.RecoveryPoint() != 1 {
		select {
		case <-ctx.Done():
			t.Fatal("flush.ms did not flush")
		case <-time.After(time.Millisecond):
		}
	}
}

func TestLongPoll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), testConfig())
	defer l.Close()
	ch := l.AppendSignal()
	select {
	case <-ch:
		t.Fatal("signal before append")
	default:
	}
	done := make(chan error, 1)
	go func() { done <- l.WaitForData(ctx, 0) }()
	mustAppend(t, l, makeBatch(t, 1, 1, "v"))
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatal("append did not close the signal")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	short, c2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer c2()
	if err := l.WaitForData(short, 1); err != context.DeadlineExceeded {
		t.Fatalf("wait without data: %v", err)
	}
	go func() { done <- l.WaitForData(ctx, 5) }()
	l.Close()
	if err := <-done; err != ErrClosed {
		t.Fatalf("close did not wake waiter: %v", err)
	}
}
