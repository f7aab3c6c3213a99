package server

import (
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/quota"
)

// startRateLimitedListeners serves PLAINTEXT and the inter-broker
// INTERNAL with limits, over quota windows of 10 minutes, so that a
// throttled accept waits for as long as the test runs.
func startRateLimitedListeners(t *testing.T, set func(*ConnectionLimits)) *Server {
	t.Helper()
	limits := NoConnectionLimits()
	limits.InterBrokerListener = "INTERNAL"
	set(&limits)
	s := New(Config{
		Listeners:        []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}, {Name: "INTERNAL", Addr: "127.0.0.1:0"}},
		ConnectionLimits: &limits,
		ClientQuotas:     quota.NewManager(quota.Config{Window: quota.Window{Num: 2, SizeMs: (10 * time.Minute).Milliseconds()}}),
		Logger:           slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	serveForTest(t, s)
	return s
}

// A broker-wide max.connection.creation.rate of 0 holds back the client
// listener's accept, while the inter-broker listener, exempt from it,
// goes on serving. Its own rate is raised: a listener without one has the
// broker's value, as Kafka's listener configs fall back to the broker's.
func TestInterBrokerListenerIsExemptFromTheBrokerCreationRate(t *testing.T) {
	s := startRateLimitedListeners(t, func(l *ConnectionLimits) {
		l.MaxConnectionCreationRate = 0
		l.ListenerMaxConnectionCreationRate = map[string]int{"INTERNAL": math.MaxInt32}
	})
	dialTest(t, s.Addr("PLAINTEXT").String())
	waitFor(t, "the PLAINTEXT accept is throttled", func() bool { return s.AcceptsThrottled() == 1 })
	dialAnswered(t, s.Addr("INTERNAL").String(), 1)
	if got := s.AcceptsThrottled(); got != 1 {
		t.Fatalf("AcceptsThrottled = %d after an INTERNAL connection, want 1", got)
	}
	if broker, internal := s.ConnectionCreationRates("INTERNAL"); broker <= 0 || internal <= 0 {
		t.Fatalf("creation rates broker %v, INTERNAL %v; want both > 0", broker, internal)
	}
}

// A listener's own rate applies to the inter-broker listener too, and to
// no other listener.
func TestListenerCreationRateBindsOnlyItsListener(t *testing.T) {
	s := startRateLimitedListeners(t, func(l *ConnectionLimits) {
		l.ListenerMaxConnectionCreationRate = map[string]int{"INTERNAL": 0}
	})
	dialTest(t, s.Addr("INTERNAL").String())
	waitFor(t, "the INTERNAL accept is throttled", func() bool { return s.AcceptsThrottled() == 1 })
	for i := range int32(3) {
		dialAnswered(t, s.Addr("PLAINTEXT").String(), 10+i)
	}
	if got := s.AcceptsThrottled(); got != 1 {
		t.Fatalf("AcceptsThrottled = %d after PLAINTEXT connections, want 1", got)
	}
}
