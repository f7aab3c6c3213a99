package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

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

// TestFailedLoginsAreCountedAsKafkaDoes: a wrong PLAIN or SCRAM password
// and an unknown mechanism each count as a failed authentication (the
// broker's counter and Kafka's socket-server-metrics
// failed-authentication-total, by listener), none of their requests
// reaches a handler, and a good login counts as successful.
func TestFailedLoginsAreCountedAsKafkaDoes(t *testing.T) {
	b := startSASLBroker(t, karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	ctx := testContext(t)
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	listener := `listener="SASL_PLAINTEXT"`
	const failedMetric = "kafka_server_socket_server_metrics_failed_authentication_total"
	const succeededMetric = "kafka_server_socket_server_metrics_successful_authentication_total"

	// Kafka answers ApiVersions before authentication; it is the one
	// request of a refused client that may be handled.
	apiVersions := func() float64 {
		return metricSum(scrapeMetrics(t, ctx, b.MetricsURL()), "kafka_network_requestmetrics_requests_total", `request="ApiVersions"`)
	}
	handled, versionsBefore := b.RequestsHandled(), apiVersions()
	for _, refused := range []struct {
		name string
		m    sasl.Mechanism
		want *kerr.Error
	}{
		{"wrong PLAIN password", plain.Auth{User: "alice", Pass: "wrong"}.AsMechanism(), kerr.SaslAuthenticationFailed},
		{"wrong SCRAM-SHA-512 password", scram.Auth{User: "alice", Pass: "wrong"}.AsSha512Mechanism(), kerr.SaslAuthenticationFailed},
		{"unknown mechanism", oauth.Auth{Token: "t"}.AsMechanism(), kerr.UnsupportedSaslMechanism},
	} {
		before := b.AuthenticationsFailed()
		err := saslClient(t, addr, refused.m, kgo.RequestRetries(0)).Ping(ctx)
		if !errors.Is(err, refused.want) {
			t.Fatalf("%s: ping: %v, want %s", refused.name, err, refused.want.Message)
		}
		if b.AuthenticationsFailed() <= before {
			t.Fatalf("%s: AuthenticationsFailed stayed at %d", refused.name, before)
		}
	}
	if got, versions := b.RequestsHandled()-handled, apiVersions()-versionsBefore; float64(got) != versions {
		t.Fatalf("%d requests of refused clients reached a handler, %v of them ApiVersions", got, versions)
	}
	failed := float64(b.AuthenticationsFailed())
	if failed < 3 {
		t.Fatalf("AuthenticationsFailed = %v after three refused logins", failed)
	}
	if got := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), failedMetric, listener); got != failed {
		t.Fatalf("%s = %v, the broker counted %v", failedMetric, got, failed)
	}
	if got := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), succeededMetric, listener); got != -1 && got != 0 {
		t.Fatalf("%s = %v before any login succeeded", succeededMetric, got)
	}
	if err := saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()).Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if got := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), succeededMetric, listener); got < 1 {
		t.Fatalf("%s = %v after alice logged in", succeededMetric, got)
	}
	if got := float64(b.AuthenticationsFailed()); got != failed {
		t.Fatalf("a good login counted as failed (%v, was %v)", got, failed)
	}
}

// metricSum adds up every sample of name whose labels contain every
// fragment, or 0 when there is none.
func metricSum(body, name string, labels ...string) float64 {
	sum := 0.0
	for _, line := range strings.Split(body, "\n") {
		if v := metricValue(line, name, labels...); v > 0 {
			sum += v
		}
	}
	return sum
}
