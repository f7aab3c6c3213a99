package server

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/quota"
)

// rateLimitedQuotas are client quotas with connection_creation_rate
// rate on the default ip entity, over 2 windows of window.
func rateLimitedQuotas(rate float64, window time.Duration) *quota.Manager {
	m := quota.NewManager(quota.Config{Window: quota.Window{Num: 2, SizeMs: window.Milliseconds()}})
	m.SetQuotas([]metadata.Quotas{{
		Entity: metadata.NewQuotaEntity([]metadata.QuotaEntityData{{Type: metadata.QuotaEntityIP}}),
		Values: map[string]float64{quota.ConnectionCreationRate: rate},
	}})
	return m
}

// A connection over its address's connection rate is closed by the
// server without being served and does not count against the address's
// connections; with a rate of 0 every one is throttled for one window.
func TestConnectionOverTheRateIsClosedAfterTheThrottle(t *testing.T) {
	s, addr := startTestServer(t, Config{ClientQuotas: rateLimitedQuotas(0, time.Second)})
	c := dialTest(t, addr)
	waitFor(t, "the connection is throttled", func() bool { return s.Stats().ConnectionsThrottled.Load() == 1 })
	if got := s.ConnectionCount(loopback); got != 0 {
		t.Fatalf("ConnectionCount(127.0.0.1) = %d, want 0 (a throttled connection is not counted)", got)
	}
	expectClosedByServer(t, c)
	if got := s.Stats().ConnectionsAccepted.Load(); got != 0 {
		t.Fatalf("ConnectionsAccepted = %d, want 0", got)
	}
}

// Shutdown closes throttled connections at once rather than waiting out
// their delay (here one 10-minute window).
func TestShutdownClosesThrottledConnections(t *testing.T) {
	s := New(Config{
		Listeners:    []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}},
		ClientQuotas: rateLimitedQuotas(0, 10*time.Minute),
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	serveForTest(t, s)
	c := dialTest(t, s.Addr("PLAINTEXT").String())
	waitFor(t, "the connection is throttled", func() bool { return s.Stats().ConnectionsThrottled.Load() == 1 })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a throttled connection: %v", err)
	}
	expectClosedByServer(t, c)
}
