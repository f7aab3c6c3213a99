package metrics

import "github.com/prometheus/client_golang/prometheus"

// authentications are Kafka's socket-server-metrics authentication meters
// (Selector's successful-authentication, failed-authentication,
// successful-reauthentication and failed-reauthentication, each a -total
// and a -rate), by listener. A connection counts once, when it is ready: an
// SSL listener's at the end of its handshake, a SASL listener's at the end
// of its SASL exchange (after TLS on SASL_SSL); a PLAINTEXT connection never
// authenticates. A failed TLS handshake, an unmapped client certificate,
// an unknown mechanism and a wrong password all count as failed. The rate
// is the scraper's to take.
type authentications struct {
	succeeded, failed, reSucceeded, reFailed *prometheus.CounterVec
}

func newAuthentications() *authentications {
	vec := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "server", Name: "socket_server_metrics_" + name + "_total",
			Help: help + " (socket-server-metrics " + name + "-total).",
		}, []string{"listener"})
	}
	return &authentications{
		succeeded:   vec("successful_authentication", "Connections that authenticated"),
		failed:      vec("failed_authentication", "Connections whose authentication failed: TLS handshake, client certificate or SASL"),
		reSucceeded: vec("successful_reauthentication", "SASL re-authentications that succeeded"),
		reFailed:    vec("failed_reauthentication", "SASL re-authentications that failed"),
	}
}

func (a *authentications) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.succeeded, a.failed, a.reSucceeded, a.reFailed}
}

// AuthenticationEnded counts the outcome of an authentication (or
// re-authentication) of a connection on listener.
func (m *Metrics) AuthenticationEnded(listener string, succeeded, reauthentication bool) {
	if m == nil {
		return
	}
	v := m.authentications.failed
	switch {
	case succeeded && reauthentication:
		v = m.authentications.reSucceeded
	case succeeded:
		v = m.authentications.succeeded
	case reauthentication:
		v = m.authentications.reFailed
	}
	v.WithLabelValues(listener).Inc()
}
