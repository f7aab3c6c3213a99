package integration

import (
	"testing"

	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/karsttest"
)

// TestConnectionsByPrincipalMetric: the metrics name who is connected: a
// connection counts under User:ANONYMOUS until it authenticates, then
// under its principal, and its series goes when it closes.
func TestConnectionsByPrincipalMetric(t *testing.T) {
	b := startSASLBroker(t, karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	ctx := testContext(t)
	const name = "karst_server_connections_by_principal"
	alicePrincipal := []string{`listener="SASL_PLAINTEXT"`, `principal="User:alice"`}

	// A raw connection that has not authenticated.
	c := dialKafka(t, b.ListenerAddr("SASL_PLAINTEXT"))
	for metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), name, `principal="User:ANONYMOUS"`) != 1 {
		if ctx.Err() != nil {
			t.Fatal("the unauthenticated connection is not counted under User:ANONYMOUS")
		}
	}
	cl := saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism())
	if err := cl.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if got := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), name, alicePrincipal...); got < 1 {
		t.Fatalf("%s for alice = %v after she authenticated", name, got)
	}
	cl.Close()
	c.nc.Close()
	for {
		body := scrapeMetrics(t, ctx, b.MetricsURL())
		if metricValue(body, name, alicePrincipal...) == -1 && metricValue(body, name, `principal="User:ANONYMOUS"`) == -1 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("series left after the connections closed:\n%s", body)
		}
	}
}
