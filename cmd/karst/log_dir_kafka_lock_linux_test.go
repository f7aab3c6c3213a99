package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLogDirLockedAsKafkaLocksItRefusesToStart: the second of two log dirs
// has its .lock held by another process with a POSIX record lock, as a
// running Kafka broker holds it (Java's FileChannel.tryLock). Kafka 4.4.0
// started on such a dir logs "Failed to acquire lock on file .lock in
// <dir>. A Kafka instance in another process or thread is using this
// directory." and exits with status 1 (measured); so must Karst, naming the
// dir, instead of serving a dir another broker writes. Until 2026-12-02
// Karst locked with flock, did not see the lock and served the dir.
func TestLogDirLockedAsKafkaLocksItRefusesToStart(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	if err := os.MkdirAll(b, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(b, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	// A record lock belongs to this test process; the broker is another one.
	if err := unix.FcntlFlock(lock.Fd(), unix.F_SETLK, &unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "serve",
		"--override", "listeners=PLAINTEXT://127.0.0.1:0",
		"--override", "log.dirs="+a+","+b).CombinedOutput()
	if code := exitCode(err); code != 1 {
		t.Fatalf("karst on a dir locked by another process: exit %d, want 1\n%s", code, out)
	}
	if want := "failed to acquire lock on file .lock in " + b; !strings.Contains(string(out), want) {
		t.Fatalf("karst's output does not say %q:\n%s", want, out)
	}
	if _, err := os.Stat(filepath.Join(b, "meta.properties")); !os.IsNotExist(err) {
		t.Fatalf("karst wrote into the locked dir: meta.properties %v", err)
	}
}
