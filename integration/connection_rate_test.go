package integration

import (
	"context"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
	"github.com/twmb/franz-go/pkg/kadm"
)

// acceptThrottled is kafka_socket_server_metrics_connection_accept_throttled_total:
// connections whose accept waited for max.connection.creation.rate.
func acceptThrottled(t *testing.T, ctx context.Context, b *karsttest.Broker) float64 {
	t.Helper()
	const name = "kafka_socket_server_metrics_connection_accept_throttled_total"
	v := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), name)
	if v < 0 {
		t.Fatal(name + " not exported")
	}
	return v
}

// TestMaxConnectionCreationRateDelaysAccepts (KIP-612): with the
// broker-wide max.connection.creation.rate=2 (over 2 × 1 s quota windows,
// so measured over at least 1 s), ten raw connections opened at once are
// all served, since a connection over the broker's rate is not refused:
// the acceptor waits before taking it, and counts it as throttled. The
// test asserts on the broker's counter and on which connections are
// answered, not on how long anything takes.
func TestMaxConnectionCreationRateDelaysAccepts(t *testing.T) {
	b, _, _ := adminClient(t, append(quotaWindows, karsttest.WithConfig("max.connection.creation.rate", "2"))...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	before := acceptThrottled(t, ctx, b)
	const n = 10
	served := dialAndAsk(t, b.Addr(), nil, n)
	throttled := acceptThrottled(t, ctx, b) - before
	t.Logf("max.connection.creation.rate=2: %d of %d connections served, %v accepts throttled", served, n, throttled)
	if served != n {
		t.Fatalf("%d of %d connections served: a connection over max.connection.creation.rate must be delayed, not closed", served, n)
	}
	if throttled == 0 {
		t.Fatalf("no accept throttled for %d connections at once at max.connection.creation.rate=2", n)
	}
	if v := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), "kafka_socket_server_metrics_broker_connection_accept_rate"); v <= 0 {
		t.Fatalf("kafka_socket_server_metrics_broker_connection_accept_rate = %v after %d connections, want > 0", v, n)
	}
}

// TestListenerMaxConnectionCreationRateIsDynamic: without a rate, ten
// connections at once throttle nothing; after IncrementalAlterConfigs
// sets the cluster-wide listener.name.plaintext.max.connection.creation.rate
// to 2, a batch of ten is throttled (batches are dialled until the update
// has reached the acceptor, within the test's deadline), and every
// connection of every batch is still served.
func TestListenerMaxConnectionCreationRateIsDynamic(t *testing.T) {
	b, _, adm := adminClient(t, quotaWindows...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const n = 10
	before := acceptThrottled(t, ctx, b)
	if served := dialAndAsk(t, b.Addr(), nil, n); served != n {
		t.Fatalf("no rate: %d of %d connections served", served, n)
	}
	if after := acceptThrottled(t, ctx, b); after != before {
		t.Fatalf("no rate: throttled counter %v -> %v", before, after)
	}
	rate := "2"
	resp, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: "listener.name.plaintext.max.connection.creation.rate", Value: &rate}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp {
		if r.Err != nil {
			t.Fatalf("AlterBrokerConfigs: %v %s", r.Err, r.ErrMessage)
		}
	}
	for batches := 1; ; batches++ {
		if ctx.Err() != nil {
			t.Fatalf("no accept throttled after %d batches of %d connections at listener rate 2", batches-1, n)
		}
		before := acceptThrottled(t, ctx, b)
		if served := dialAndAsk(t, b.Addr(), nil, n); served != n {
			t.Fatalf("listener rate 2, batch %d: %d of %d connections served", batches, served, n)
		}
		if throttled := acceptThrottled(t, ctx, b) - before; throttled > 0 {
			t.Logf("listener rate 2: batch %d of %d connections had %v accepts throttled", batches, n, throttled)
			return
		}
	}
}
