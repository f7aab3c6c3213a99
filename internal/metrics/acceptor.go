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

// WatchConnectionCreation exports KIP-612's connection creation rates, in
// connections per second over the quota window, read at each scrape:
// socket-server-metrics broker-connection-accept-rate, and
// connection-accept-rate by listener. throttled counts the connections
// whose accept waited for max.connection.creation.rate (of the broker or
// the listener).
func (m *Metrics) WatchConnectionCreation(listeners []string, rates func(listener string) (broker, perListener float64), throttled func() int64) {
	if m == nil || len(listeners) == 0 {
		return
	}
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "kafka", Subsystem: "socket_server_metrics", Name: "broker_connection_accept_rate",
		Help: "New connections per second over all listeners but a protected inter-broker one (socket-server-metrics broker-connection-accept-rate).",
	}, func() float64 { b, _ := rates(listeners[0]); return b }))
	for _, l := range listeners {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "kafka", Subsystem: "socket_server_metrics", Name: "connection_accept_rate",
			Help:        "New connections per second on the listener (socket-server-metrics connection-accept-rate).",
			ConstLabels: prometheus.Labels{"listener": l},
		}, func() float64 { _, r := rates(l); return r }))
	}
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Namespace: "kafka", Subsystem: "socket_server_metrics", Name: "connection_accept_throttled_total",
		Help: "Connections whose accept waited for max.connection.creation.rate, the broker's or the listener's (Kafka records each one's wait in connection-accept-throttle-time).",
	}, func() float64 { return float64(throttled()) }))
}
