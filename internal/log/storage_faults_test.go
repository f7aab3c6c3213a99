package log

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// injectFaults makes fail decide the faults of every file under dir until
// the test ends.
func injectFaults(t *testing.T, dir string, fail func(op storageOp, path string) error) {
	t.Helper()
	f := faultInjector(func(op storageOp, path string) error {
		if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
			return nil
		}
		return fail(op, path)
	})
	faults.Store(&f)
	t.Cleanup(func() { faults.Store(nil) })
}

// failOp fails every op of kind op with err.
func failOp(op storageOp, err error) func(storageOp, string) error {
	return func(o storageOp, _ string) error {
		if o == op {
			return err
		}
		return nil
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// appendAcked appends n one-record batches and waits for each to be
// durable; it returns the log end offset, the acknowledged offsets' end.
func appendAcked(t *testing.T, l *Log, n int) int64 {
	t.Helper()
	for i := 0; i < n; i++ {
		res := mustAppend(t, l, makeBatch(t, 1, int64(i), "acked"))
		if err := l.WaitDurable(testContext(t), res.LastOffset); err != nil {
			t.Fatal(err)
		}
	}
	return l.LogEndOffset()
}

// checkReopens reopens dir as after a crash at the recovery point rp and
// checks that every acknowledged offset below acked is there and that the
// log takes appends again.
func checkReopens(t *testing.T, dir string, cfg Config, rp, acked int64) {
	t.Helper()
	cfg.RecoveryPoint = rp
	l := openTest(t, dir, cfg)
	defer l.Close()
	if l.LogEndOffset() < acked {
		t.Fatalf("log end %d after reopening, acknowledged up to %d", l.LogEndOffset(), acked)
	}
	for i, b := range readAll(t, l, 0) {
		if b.BaseOffset() != int64(i) {
			t.Fatalf("batch %d at offset %d", i, b.BaseOffset())
		}
	}
	appendAcked(t, l, 1)
}

// expectOffline checks that err is a storage error, that the log refuses
// further appends and that its log dir was reported failed.
func expectOffline(t *testing.T, l *Log, failures *LogDirFailureChannel, err error, cause error) {
	t.Helper()
	if !errors.Is(err, ErrStorage) || !strings.Contains(err.Error(), cause.Error()) {
		t.Fatalf("error %v, want ErrStorage caused by %v", err, cause)
	}
	if _, err := l.Append(makeBatch(t, 1, 0, "after"), AppendOptions{LeaderEpoch: 0}); !errors.Is(err, ErrStorage) {
		t.Fatalf("append after the failure: %v, want ErrStorage", err)
	}
	select {
	case f := <-failures.Failures():
		if f.Dir != filepath.Dir(l.Dir()) {
			t.Fatalf("failed dir %s, want %s", f.Dir, filepath.Dir(l.Dir()))
		}
	default:
		t.Fatal("the log dir was not reported failed")
	}
}

func faultTestLog(t *testing.T) (string, Config, *LogDirFailureChannel, *Log) {
	root := t.TempDir()
	dir := filepath.Join(root, "t-0")
	cfg := testConfig()
	failures := NewLogDirFailureChannel(1, testLogger(t))
	cfg.DirFailures = failures
	return dir, cfg, failures, openTest(t, dir, cfg)
}

// A failed write, fsync or read fails the append, its wait or the read,
// takes the log offline (Kafka's LocalLog marks the dir offline on any
// IOException) and loses nothing acknowledged: the log reopens with every
// acknowledged batch.
func TestStorageFaultsTakeTheLogOffline(t *testing.T) {
	for _, c := range []struct {
		name  string
		op    storageOp
		cause error
		// provoke appends after the fault is set and returns the error.
		provoke func(t *testing.T, l *Log) error
	}{
		{"write", opWriteLog, syscall.ENOSPC, func(t *testing.T, l *Log) error {
			_, err := l.Append(makeBatch(t, 5, 100, "lost"), AppendOptions{LeaderEpoch: 0})
			return err
		}},
		{"fsync", opSyncLog, syscall.EIO, func(t *testing.T, l *Log) error {
			res := mustAppend(t, l, makeBatch(t, 2, 100, "unacked"))
			return l.WaitDurable(testContext(t), res.LastOffset)
		}},
		{"index fsync", opSyncIndex, syscall.EIO, func(t *testing.T, l *Log) error {
			// The rolled segment's indexes are fsynced with the next round.
			l.mu.Lock()
			err := l.roll(l.LogEndOffset(), l.now())
			l.mu.Unlock()
			if err != nil {
				return err
			}
			return l.Flush(testContext(t))
		}},
		{"leader epoch checkpoint", opWriteFile, syscall.ENOSPC, func(t *testing.T, l *Log) error {
			res, err := l.Append(makeBatch(t, 2, 100, "unacked"), AppendOptions{LeaderEpoch: 4})
			if err != nil {
				return err
			}
			return l.WaitDurable(testContext(t), res.LastOffset)
		}},
		{"read", opReadLog, syscall.EIO, func(t *testing.T, l *Log) error {
			_, err := l.Read(1, 1<<20, true)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, cfg, failures, l := faultTestLog(t)
			acked := appendAcked(t, l, 3)
			injectFaults(t, dir, failOp(c.op, c.cause))
			expectOffline(t, l, failures, c.provoke(t, l), c.cause)
			if l.RecoveryPoint() != acked {
				t.Fatalf("recovery point %d after the failure, want %d", l.RecoveryPoint(), acked)
			}
			faults.Store(nil)
			_ = l.Close()
			checkReopens(t, dir, cfg, acked, acked)
		})
	}
}

func TestFailedIndexReservationWritesNothing(t *testing.T) {
	dir, cfg, failures, l := faultTestLog(t)
	acked := appendAcked(t, l, 2)
	_ = l.Close()
	// A reopened log reserves its active indexes again at the next append.
	l = openTest(t, dir, cfg)
	size := l.Size()
	injectFaults(t, dir, failOp(opAllocIndex, syscall.ENOSPC))
	_, err := l.Append(makeBatch(t, 3, 7, "lost"), AppendOptions{LeaderEpoch: 0})
	expectOffline(t, l, failures, err, syscall.ENOSPC)
	st, _ := os.Stat(FileName(dir, 0, LogSuffix))
	if l.Size() != size || st.Size() != size {
		t.Fatalf("a failed reservation wrote: log %d bytes, file %d, was %d", l.Size(), st.Size(), size)
	}
	faults.Store(nil)
	_ = l.Close()
	checkReopens(t, dir, cfg, acked, acked)
}
