package storage

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLockLogDirAndKafkasLockExcludeEachOther: Kafka locks .lock with
// Java's FileChannel.tryLock, a POSIX record lock (fcntl F_SETLK). While
// one is held, LockLogDir fails with ErrLogDirLocked; while LockLogDir
// holds the dir, such a lock is refused. With flock, which Karst used until
// 2026-12-02, neither saw the other, and a Karst started on a running
// Kafka's log dir served it (checked by hand: Karst started on a dir whose
// .lock a Python fcntl.lockf held).
func TestLockLogDirAndKafkasLockExcludeEachOther(t *testing.T) {
	dir := t.TempDir()
	kafka, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer kafka.Close()
	recordLock := func(typ int16) error {
		lk := unix.Flock_t{Type: typ, Whence: io.SeekStart}
		return unix.FcntlFlock(kafka.Fd(), unix.F_SETLK, &lk)
	}
	if err := recordLock(unix.F_WRLCK); err != nil {
		t.Fatal(err)
	}
	if _, err := LockLogDir(dir); !errors.Is(err, ErrLogDirLocked) {
		t.Fatalf("LockLogDir with Kafka's lock held: %v, want ErrLogDirLocked", err)
	}
	if err := recordLock(unix.F_UNLCK); err != nil {
		t.Fatal(err)
	}
	ours, err := LockLogDir(dir)
	if err != nil {
		t.Fatalf("LockLogDir once Kafka's lock is released: %v", err)
	}
	if err := recordLock(unix.F_WRLCK); !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EACCES) {
		t.Fatalf("Kafka's lock while Karst holds the dir: %v, want EAGAIN or EACCES", err)
	}
	if err := ours.Release(); err != nil {
		t.Fatal(err)
	}
	if err := recordLock(unix.F_WRLCK); err != nil {
		t.Fatalf("Kafka's lock once Karst released the dir: %v", err)
	}
}
