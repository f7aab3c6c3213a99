package log

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A log whose dir went offline serves nothing: reads, appends and long
// polls fail with ErrStorage (KAFKA_STORAGE_ERROR), a long poll already
// waiting returns at once. Until 2026-12-02 an offline log still served
// reads.
func TestOfflineLogServesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l := openTest(t, dir, testConfig())
	defer l.Close()
	if _, err := l.Append(makeBatch(t, 3, 0, "v"), AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	waiting := make(chan error, 1)
	go func() { waiting <- l.WaitForData(ctx, l.HighWatermark()) }()

	l.TakeOffline(syscall.EIO)
	if !l.Offline() {
		t.Fatal("not offline")
	}
	select {
	case err := <-waiting:
		if !errors.Is(err, ErrStorage) {
			t.Fatalf("waiting long poll: %v, want ErrStorage", err)
		}
	case <-ctx.Done():
		t.Fatal("the waiting long poll was not woken")
	}
	if _, err := l.Read(0, 1<<20, true); !errors.Is(err, ErrStorage) {
		t.Fatalf("read: %v, want ErrStorage", err)
	}
	if _, _, err := l.ReadBytes(nil, 0, 1<<20, true); !errors.Is(err, ErrStorage) {
		t.Fatalf("read bytes: %v, want ErrStorage", err)
	}
	if _, err := l.Append(makeBatch(t, 1, 3, "v"), AppendOptions{}); !errors.Is(err, ErrStorage) {
		t.Fatalf("append: %v, want ErrStorage", err)
	}
}
