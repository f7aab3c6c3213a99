package log

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashKeys and crashRecords shape the log the kill -9 test cleans: 40
// keys updated in turn, with tombstones, and keys written once, over
// segments of a few batches.
const (
	crashKeys    = 40
	crashRecords = 400
)

func crashConfig() Config {
	c := compactConfig()
	c.SegmentBytes = 700
	return c
}

// writeCrashLog fills dir and returns, per key, the value of its last record.
func writeCrashLog(t *testing.T, dir string) map[string]string {
	l := openTest(t, dir, crashConfig())
	latest := map[string]string{}
	for i := 0; i < crashRecords; i++ {
		k, v := fmt.Sprintf("k%02d", i%crashKeys), fmt.Sprintf("v%d", i)
		if i%5 == 0 {
			k = fmt.Sprintf("u%d", i) // written once: survives wherever it lies
		} else if i%7 == 0 {
			v = "" // tombstone
		}
		mustAppend(t, l, keyedBatch(t, int64(i), k, v))
		latest[k] = v
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return latest
}

// TestCleanerCrashChild is the child of TestKillDuringCleaning: it cleans
// the log in $KARST_CLEANER_CRASH_DIR and SIGKILLs itself at the n-th
// time it reaches step $KARST_CLEANER_CRASH_AT ("step:n").
func TestCleanerCrashChild(t *testing.T) {
	dir, at := os.Getenv("KARST_CLEANER_CRASH_DIR"), os.Getenv("KARST_CLEANER_CRASH_AT")
	if dir == "" {
		t.Skip("run by TestKillDuringCleaning")
	}
	step, nth, _ := strings.Cut(at, ":")
	n, _ := strconv.Atoi(nth)
	seen := 0
	cleanerCrashHook = func(s string) {
		if s == step {
			if seen++; seen == n {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute) // the signal is on its way
			}
		}
	}
	l := openTest(t, dir, crashConfig())
	cleanOnce(t, l, -1, time.UnixMilli(1000), 1<<20)
	os.Exit(3) // the kill point was never reached
}

// TestKillDuringCleaning kills a cleaning process at points spread over
// the pass (after each source segment, before and after each rename of
// each group's swap) and checks that the log opens, every key's last
// record is the last value written, and cleaning again gives what an
// uninterrupted pass gives.
func TestKillDuringCleaning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ref := filepath.Join(t.TempDir(), "ref-0")
	latest := writeCrashLog(t, ref)
	rl := openTest(t, ref, crashConfig())
	cleanOnce(t, rl, -1, time.UnixMilli(1000), 1<<20)
	want := fmt.Sprint(surviving(t, rl))
	rl.Close()

	var points []string
	for _, step := range []string{"segment-cleaned", "cleaned-written", "swap-renamed", "old-retired", "swapped"} {
		for n := 1; n <= 12; n += 3 {
			points = append(points, fmt.Sprintf("%s:%d", step, n))
		}
	}
	killed := 0
	for _, at := range points {
		dir := filepath.Join(t.TempDir(), "crash-0")
		writeCrashLog(t, dir)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCleanerCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "KARST_CLEANER_CRASH_DIR="+dir, "KARST_CLEANER_CRASH_AT="+at)
		err := cmd.Run()
		cancel()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			if cmd.ProcessState.ExitCode() == 3 {
				continue // fewer occurrences of that step than n
			}
			t.Fatalf("%s: child ended with %v", at, err)
		}
		killed++
		l := openTest(t, dir, crashConfig())
		last := map[string]string{}
		for _, rec := range surviving(t, l) {
			_, kv, _ := strings.Cut(rec, ":")
			k, v, _ := strings.Cut(kv, "=")
			if v == "<null>" {
				v = ""
			}
			last[k] = v
		}
		for k, v := range latest {
			if got, ok := last[k]; (ok || v != "") && got != v {
				t.Fatalf("killed at %s: key %s ends with %q, the last value written was %q", at, k, got, v)
			}
		}
		if l.LogEndOffset() != crashRecords {
			t.Fatalf("killed at %s: log end %d, want %d", at, l.LogEndOffset(), crashRecords)
		}
		cleanOnce(t, l, -1, time.UnixMilli(1000), 1<<20)
		if got := fmt.Sprint(surviving(t, l)); got != want {
			t.Fatalf("killed at %s: cleaning again gives\n%s\nan uninterrupted pass gives\n%s", at, got, want)
		}
		l.Close()
	}
	if killed < 10 {
		t.Fatalf("only %d of %d kill points were reached", killed, len(points))
	}
	t.Logf("%d kill points reached and recovered", killed)
}
