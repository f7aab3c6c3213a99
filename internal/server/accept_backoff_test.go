package server

import (
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestAcceptRetryBacksOffAndLogsOncePerInterval(t *testing.T) {
	var logs lineCounter
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	var r acceptRetry
	now := time.Unix(1_000_000, 0)
	wantDelays := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i, want := range wantDelays {
		if got := r.failed(logger, "PLAINTEXT", syscall.EMFILE, now); got != want*time.Millisecond {
			t.Fatalf("delay after failure %d = %v, want %v", i+1, got, want*time.Millisecond)
		}
	}
	// 60 s of failures a millisecond apart log one line per 10 s.
	for range 60_000 {
		now = now.Add(time.Millisecond)
		r.failed(logger, "PLAINTEXT", syscall.EMFILE, now)
	}
	if got := logs.count("accept failed"); got != 7 {
		t.Fatalf("%d lines for 60 s of failures, want 7 (one per 10 s):\n%s", got, logs.String())
	}
	if !strings.Contains(logs.String(), "failures_not_logged=9999") {
		t.Fatalf("no count of the failures not logged:\n%s", logs.String())
	}

	r.succeeded(logger, "PLAINTEXT", now)
	if got := logs.count("accepting connections again"); got != 1 {
		t.Fatalf("%d recovery lines, want 1", got)
	}
	// A new episode starts from the shortest delay, and does not log
	// before the interval since the last line has passed.
	if got := r.failed(logger, "PLAINTEXT", syscall.EMFILE, now); got != minAcceptRetryDelay {
		t.Fatalf("first delay of a new episode = %v, want %v", got, minAcceptRetryDelay)
	}
	r.succeeded(logger, "PLAINTEXT", now)
	if got := logs.count("accept failed") + logs.count("accepting connections again"); got != 8 {
		t.Fatalf("an episode within the interval logged: %d lines, want 8", got)
	}
}

func TestAcceptFailuresBackOffAndServingGoesOn(t *testing.T) {
	var logs lineCounter
	s := New(Config{
		Listeners: []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}},
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	failing := &exhaustedListener{Listener: s.listeners["PLAINTEXT"]}
	s.listeners["PLAINTEXT"] = failing
	serveForTest(t, s)
	addr := s.Addr("PLAINTEXT").String()
	established := dialAnswered(t, addr, 1)

	failing.exhausted.Store(true)
	waiting := dialTest(t, addr) // the backlog holds it
	if _, err := waiting.Write(apiVersions(2)); err != nil {
		t.Fatal(err)
	}
	// Eight failures take 5+10+...+640 ms of backoff; without it they
	// take microseconds and log a line each.
	waitFor(t, "eight accepts failed", func() bool { return failing.failures.Load() >= 8 })
	roundTrip(t, established, apiVersions(3), 3)
	if got := logs.count("accept failed"); got != 1 {
		t.Fatalf("%d log lines for %d failed accepts, want 1:\n%s", got, failing.failures.Load(), logs.String())
	}
	// The ninth failure is 640 ms after the eighth.
	if got := failing.failures.Load(); got > 9 {
		t.Fatalf("%d accepts failed, want at most 9 after 8 with backoff", got)
	}

	failing.exhausted.Store(false)
	if got, err := readResponse(waiting); err != nil || got != 2 {
		t.Fatalf("connection queued while accept failed: correlation id %d, %v; want an answer to 2", got, err)
	}
	waitFor(t, "the recovery is logged", func() bool { return logs.count("accepting connections again") == 1 })
	if got := s.Stats().AcceptErrors.Load(); got != failing.failures.Load() {
		t.Fatalf("AcceptErrors = %d, want %d", got, failing.failures.Load())
	}
}

// exhaustedListener fails accepts with EMFILE while exhausted is set,
// leaving connections in the backlog as the kernel does.
type exhaustedListener struct {
	net.Listener
	exhausted atomic.Bool
	closed    atomic.Bool
	failures  atomic.Int64
	mu        sync.Mutex
	backlog   []net.Conn
}

func (l *exhaustedListener) Accept() (net.Conn, error) {
	for {
		if l.closed.Load() {
			return nil, net.ErrClosed
		}
		if l.exhausted.Load() {
			l.failures.Add(1)
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
		}
		l.mu.Lock()
		if len(l.backlog) > 0 {
			nc := l.backlog[0]
			l.backlog = l.backlog[1:]
			l.mu.Unlock()
			return nc, nil
		}
		l.mu.Unlock()
		nc, err := l.Listener.Accept()
		if err != nil || !l.exhausted.Load() {
			return nc, err
		}
		l.mu.Lock()
		l.backlog = append(l.backlog, nc)
		l.mu.Unlock()
	}
}

func (l *exhaustedListener) Close() error {
	l.closed.Store(true)
	return l.Listener.Close()
}

// lineCounter is a log sink that keeps its first maxKeptLines lines (a
// flood of them, without the fix, must not exhaust the test's memory).
type lineCounter struct {
	mu    sync.Mutex
	lines []string
	// total and bytes count every line written, kept or not.
	total, bytes int
}

const maxKeptLines = 1000

// Write takes one record: slog handlers write a line per call.
func (w *lineCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total++
	w.bytes += len(p)
	if len(w.lines) < maxKeptLines {
		w.lines = append(w.lines, string(p))
	}
	return len(p), nil
}

// String is the first lines kept, for failure messages.
func (w *lineCounter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines[:min(len(w.lines), 20)], "")
}

func (w *lineCounter) count(substr string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, line := range w.lines {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}
