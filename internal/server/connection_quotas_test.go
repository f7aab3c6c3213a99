package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/handler"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// startLimitedServer serves with the given connection limits.
func startLimitedServer(t *testing.T, limits ConnectionLimits) (*Server, string) {
	t.Helper()
	return startTestServer(t, Config{ConnectionLimits: &limits})
}

// startTwoListeners serves PLAINTEXT and INTERNAL with the given limits.
func startTwoListeners(t *testing.T, limits ConnectionLimits) *Server {
	t.Helper()
	s := New(Config{
		Listeners:        []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}, {Name: "INTERNAL", Addr: "127.0.0.1:0"}},
		ConnectionLimits: &limits,
		Logger:           slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	serveForTest(t, s)
	return s
}

// startWithTwoConnections serves with the limits set makes and opens two
// connections, returning the first.
func startWithTwoConnections(t *testing.T, set func(*ConnectionLimits)) (*Server, string, net.Conn) {
	t.Helper()
	limits := NoConnectionLimits()
	set(&limits)
	s, addr := startLimitedServer(t, limits)
	first := dialAnswered(t, addr, 1)
	dialAnswered(t, addr, 2)
	return s, addr, first
}

// dialAnswered opens a connection and checks it is served.
func dialAnswered(t *testing.T, addr string, correlationID int32) net.Conn {
	t.Helper()
	c := dialTest(t, addr)
	roundTrip(t, c, apiVersions(correlationID), correlationID)
	return c
}

// expectClosedByServer checks the server closes c without answering.
func expectClosedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	c.Write(apiVersions(99))
	if _, err := readResponse(c); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read on a connection over the limit: %v, want it closed by the server", err)
	}
}

func TestPerIPLimitRefusesTheConnectionOverItUntilOneCloses(t *testing.T) {
	s, addr, first := startWithTwoConnections(t, func(l *ConnectionLimits) { l.MaxConnectionsPerIP = 2 })

	expectClosedByServer(t, dialTest(t, addr))
	if got := s.Stats().ConnectionsRefusedPerIP.Load(); got != 1 {
		t.Fatalf("ConnectionsRefusedPerIP = %d, want 1", got)
	}
	if got := s.ConnectionCount(loopback); got != 2 {
		t.Fatalf("ConnectionCount(127.0.0.1) = %d, want 2 (the refused one is not counted)", got)
	}

	first.Close()
	waitFor(t, "the closed connection is released", func() bool { return s.ConnectionCount(loopback) == 1 })
	dialAnswered(t, addr, 3)
}

func TestMaxConnectionsBlocksTheAcceptorUntilOneCloses(t *testing.T) {
	s, addr, first := startWithTwoConnections(t, func(l *ConnectionLimits) { l.MaxConnections = 2 })

	// The third connects (the kernel's backlog holds it) but is not served:
	// the acceptor waits for a slot.
	third := dialTest(t, addr)
	if _, err := third.Write(apiVersions(3)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the acceptor waits for a slot", func() bool { return s.quotas.acceptorsWaiting() == 1 })
	if got := s.Stats().ConnectionsAccepted.Load(); got != 2 {
		t.Fatalf("ConnectionsAccepted = %d while at max.connections 2, want 2", got)
	}

	first.Close()
	if got, err := readResponse(third); err != nil || got != 3 {
		t.Fatalf("third connection after one closed: correlation id %d, %v; want an answer to 3", got, err)
	}
	if s.AcceptorBlocked("PLAINTEXT") <= 0 {
		t.Fatal("AcceptorBlocked is 0 after the acceptor waited")
	}
}

func TestPerIPOverridesApplyToResolvedHostsWithAZeroDefault(t *testing.T) {
	limits := NoConnectionLimits()
	limits.MaxConnectionsPerIP = 0
	limits.MaxConnectionsPerIPOverrides = map[string]int{"localhost": 2, "192.0.2.7": 5}
	s, addr := startLimitedServer(t, limits)
	if got := s.quotas.limits.perIP[netip.MustParseAddr("192.0.2.7")]; got != 5 {
		t.Fatalf("override for 192.0.2.7 = %d, want 5", got)
	}
	dialAnswered(t, addr, 1)
	dialAnswered(t, addr, 2)
	expectClosedByServer(t, dialTest(t, addr))

	// Without the override, max.connections.per.ip 0 admits nobody.
	limits.MaxConnectionsPerIPOverrides = map[string]int{"192.0.2.7": 5}
	if err := s.SetConnectionLimits(t.Context(), limits); err != nil {
		t.Fatal(err)
	}
	expectClosedByServer(t, dialTest(t, addr))
}

func TestUnresolvableOverrideHostFailsListenAndKeepsLimitsOnUpdate(t *testing.T) {
	limits := NoConnectionLimits()
	limits.MaxConnectionsPerIPOverrides = map[string]int{"no-such-host.invalid": 1}
	s := New(Config{Listeners: []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}, ConnectionLimits: &limits})
	if err := s.Listen(); err == nil {
		s.Shutdown(t.Context())
		t.Fatal("Listen resolved no-such-host.invalid")
	}

	ok := NoConnectionLimits()
	ok.MaxConnectionsPerIP = 1
	live, _ := startLimitedServer(t, ok)
	if err := live.SetConnectionLimits(t.Context(), limits); err == nil {
		t.Fatal("SetConnectionLimits resolved no-such-host.invalid")
	}
	if got := live.ConnectionLimits().MaxConnectionsPerIP; got != 1 {
		t.Fatalf("after a failed update max.connections.per.ip = %d, want the old 1", got)
	}
}

func TestLoweringMaxConnectionsClosesTheLeastRecentlyActive(t *testing.T) {
	s, addr := startLimitedServer(t, NoConnectionLimits())
	oldest := dialAnswered(t, addr, 1)
	older := dialAnswered(t, addr, 2)
	newest := dialAnswered(t, addr, 3)

	limits := NoConnectionLimits()
	limits.MaxConnections = 1
	if err := s.SetConnectionLimits(t.Context(), limits); err != nil {
		t.Fatal(err)
	}
	expectClosedByServer(t, oldest)
	expectClosedByServer(t, older)
	roundTrip(t, newest, apiVersions(4), 4)
	waitFor(t, "the closed connections are released", func() bool { return s.ConnectionCount(loopback) == 1 })
	if got := s.Stats().ConnectionsClosedOverMax.Load(); got != 2 {
		t.Fatalf("ConnectionsClosedOverMax = %d, want 2", got)
	}
}

func TestInterBrokerListenerIsExemptFromMaxConnections(t *testing.T) {
	limits := NoConnectionLimits()
	limits.MaxConnections = 1
	limits.InterBrokerListener = "INTERNAL"
	s := startTwoListeners(t, limits)
	client := dialAnswered(t, s.Addr("PLAINTEXT").String(), 1)

	// The inter-broker connection is served although the broker is at
	// max.connections; the client connection then goes, as in Kafka, to
	// bring the total back within the limit.
	dialAnswered(t, s.Addr("INTERNAL").String(), 2)
	expectClosedByServer(t, client)
}

func TestShutdownEndsTheAcceptorsWaitForASlot(t *testing.T) {
	limits := NoConnectionLimits()
	limits.MaxConnections = 1
	s := New(Config{
		Listeners:        []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}},
		ConnectionLimits: &limits,
		Logger:           slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	s.Serve(handler.NewBroker(handler.Options{Logger: s.logger}))
	addr := s.Addr("PLAINTEXT").String()
	dialAnswered(t, addr, 1)
	dialTest(t, addr)
	waitFor(t, "the acceptor waits for a slot", func() bool { return s.quotas.acceptorsWaiting() == 1 })

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with the acceptor waiting for a slot: %v", err)
	}
}

func TestListenerMaxConnectionsBlocksOnlyThatListener(t *testing.T) {
	limits := NoConnectionLimits()
	limits.ListenerMaxConnections = map[string]int{"INTERNAL": 1}
	s := startTwoListeners(t, limits)
	internal := s.Addr("INTERNAL").String()
	first := dialAnswered(t, internal, 1)
	queued := dialTest(t, internal)
	if _, err := queued.Write(apiVersions(2)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the INTERNAL acceptor waits for a slot", func() bool { return s.quotas.acceptorsWaiting() == 1 })
	for i := range int32(3) {
		dialAnswered(t, s.Addr("PLAINTEXT").String(), 10+i)
	}
	first.Close()
	if got, err := readResponse(queued); err != nil || got != 2 {
		t.Fatalf("queued INTERNAL connection after one closed: correlation id %d, %v; want an answer to 2", got, err)
	}
}
