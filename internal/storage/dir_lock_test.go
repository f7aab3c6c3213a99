package storage

import (
	"errors"
	"testing"
)

// TestLockLogDirIsExclusive: a second lock on a held dir fails at once,
// in this process too, and succeeds once the first is released.
func TestLockLogDirIsExclusive(t *testing.T) {
	dir := t.TempDir()
	first, err := LockLogDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockLogDir(dir); !errors.Is(err, ErrLogDirLocked) {
		t.Fatalf("second lock: %v, want ErrLogDirLocked", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := LockLogDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.Release()
}
