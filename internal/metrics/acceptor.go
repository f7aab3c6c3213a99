package metrics

import "github.com/prometheus/client_golang/prometheus"

// WatchAcceptors exports, for each listener, how long its acceptor has
// waited in all for a slot under max.connections, read at each scrape.
// Kafka's Acceptor AcceptorBlockedPercent meter is the rate of this.
func (m *Metrics) WatchAcceptors(listeners []string, blockedSeconds func(listener string) float64) {
	if m == nil {
		return
	}
	for _, l := range listeners {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "network", Name: "acceptor_blocked_seconds_total",
			Help:        "Time the listener's acceptor waited for a connection slot under max.connections (Acceptor AcceptorBlockedPercent is its rate).",
			ConstLabels: prometheus.Labels{"listener": l},
		}, func() float64 { return blockedSeconds(l) }))
	}
}
