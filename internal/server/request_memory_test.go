package server

import (
	"context"
	"net"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// paddedAPIVersions is a valid ApiVersions request of about size bytes.
func paddedAPIVersions(size int, correlationID int32) []byte {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	// Padded with an unknown tag: a client software name above 32767
	// bytes is refused, as Kafka's parser refuses it.
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1"
	req.UnknownTags.Set(unknownTagKey, make([]byte, max(size-34, 1)))
	return encodeRequest(req, correlationID)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

func TestQueuedMaxRequestBytesStopsReadingUntilMemoryReturns(t *testing.T) {
	const pool = 64 << 10
	s, addr := startTestServer(t, Config{MaxRequestSize: pool, QueuedMaxRequestBytes: pool})
	if got := s.RequestMemoryAvailable(); got != pool {
		t.Fatalf("available %d before any request, want %d", got, pool)
	}

	// A announces a frame as large as the pool and sends half of it: its
	// bytes are taken from the pool as soon as the size is known.
	holder := dialTest(t, addr)
	big := paddedAPIVersions(pool-100, 1)
	if _, err := holder.Write(big[:len(big)/2]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the large frame holds memory", func() bool { return s.RequestMemoryUsed() > 0 })

	// Kafka's pool grants a frame whenever any memory is free, so the
	// next frame is granted whole and overdraws the pool; only then does
	// a third wait, its body unread.
	filler := dialTest(t, addr)
	rest := paddedAPIVersions(1000, 2)
	if _, err := filler.Write(rest[:500]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pool is overdrawn", func() bool { return s.RequestMemoryAvailable() <= 0 })
	waiter := dialTest(t, addr)
	if _, err := waiter.Write(apiVersions(3)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the third request waits for memory", func() bool { return s.requestMemory.waiting.Load() == 1 })
	if s.RequestMemoryAvailable() > 0 {
		t.Fatalf("available %d while a request waits", s.RequestMemoryAvailable())
	}

	// The held frames complete and are answered; their memory returns
	// and the waiting request is read and answered.
	if _, err := holder.Write(big[len(big)/2:]); err != nil {
		t.Fatal(err)
	}
	if _, err := filler.Write(rest[500:]); err != nil {
		t.Fatal(err)
	}
	for i, c := range []net.Conn{holder, filler, waiter} {
		got, err := readResponse(c)
		if err != nil || got != int32(i+1) {
			t.Fatalf("connection %d: answer %d, %v", i+1, got, err)
		}
	}
	waitFor(t, "all memory is returned", func() bool { return s.RequestMemoryAvailable() == pool })
}

// With a pool a few frames large, many connections pipelining requests
// take turns reading: every request is answered, in order, and the pool
// is whole afterwards.
func TestQueuedMaxRequestBytesAnswersEveryRequest(t *testing.T) {
	const pool, frame, conns, perConn = 64 << 10, 20 << 10, 8, 25
	s, addr := startTestServer(t, Config{MaxRequestSize: pool, QueuedMaxRequestBytes: pool})
	var wg sync.WaitGroup
	for i := range conns {
		c := dialTest(t, addr)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range perConn {
				if _, err := c.Write(paddedAPIVersions(frame, int32(i*1000+j))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for j := range perConn {
				got, err := readResponse(c)
				if err != nil || got != int32(i*1000+j) {
					t.Errorf("connection %d request %d: answer %d, %v", i, j, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	waitFor(t, "all memory is returned", func() bool { return s.RequestMemoryAvailable() == pool })
}

// Shutdown ends a connection that waits for request memory instead of
// waiting for memory that only its own peers could return.
func TestShutdownEndsAWaitForRequestMemory(t *testing.T) {
	const pool = 64 << 10
	s, addr := startTestServer(t, Config{MaxRequestSize: pool, QueuedMaxRequestBytes: pool})
	holder := dialTest(t, addr)
	big := paddedAPIVersions(pool-100, 1)
	holder.Write(big[:len(big)/2])
	waitFor(t, "the large frame holds memory", func() bool { return s.RequestMemoryUsed() > 0 })
	filler := dialTest(t, addr)
	filler.Write(paddedAPIVersions(1000, 2)[:500])
	waitFor(t, "the pool is overdrawn", func() bool { return s.RequestMemoryAvailable() <= 0 })
	waiter := dialTest(t, addr)
	waiter.Write(apiVersions(3))
	waitFor(t, "a request waits for memory", func() bool { return s.requestMemory.waiting.Load() == 1 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if got := s.RequestMemoryAvailable(); got != pool {
		t.Fatalf("available %d after shutdown, want all %d back", got, pool)
	}
}

// A client that sends requests and never reads the answers fills its
// connection's in-flight slots; its next frame waits for a slot before it
// takes request memory, so the pool stays free for everyone else.
func TestClientThatDoesNotReadCannotPinRequestMemory(t *testing.T) {
	// Frames above half the pool: one pinned would exhaust it.
	const pool = 64 << 10
	s, addr := startTestServer(t, Config{MaxRequestSize: 2 * pool, QueuedMaxRequestBytes: pool,
		MaxInFlight: 2, SendBufferBytes: 4096})
	// A small receive buffer, set before connecting so that the window
	// is small from the start, makes the server's writer block soon.
	dialer := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	stuck, err := dialer.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	stuck.SetWriteDeadline(time.Now().Add(60 * time.Second))
	go func() {
		frame := paddedAPIVersions(pool+1000, 1)
		for {
			if _, err := stuck.Write(frame); err != nil {
				return
			}
		}
	}()
	waitFor(t, "the silent client's connection has every slot taken and waits for another", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for c := range s.conns {
			if len(c.slots) == cap(c.slots) && !c.receiving.Load() && c.s.RequestMemoryUsed() == 0 {
				return true
			}
		}
		return false
	})
	other := dialTest(t, addr)
	for i := range 10 {
		roundTrip(t, other, paddedAPIVersions(pool-200, int32(i)), int32(i))
	}
}
