package metrics

import "github.com/prometheus/client_golang/prometheus"

// WatchRequestMemory exports the queued.max.request.bytes pool as Kafka's
// SocketServer MemoryPoolAvailable and MemoryPoolUsed, read at each scrape.
func (m *Metrics) WatchRequestMemory(available, used func() int64) {
	if m == nil {
		return
	}
	m.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "kafka", Subsystem: "network", Name: "socketserver_memorypoolavailable",
			Help: "Bytes left in the queued.max.request.bytes pool (SocketServer MemoryPoolAvailable; 9223372036854775807 without a limit, as Kafka reports).",
		}, func() float64 { return float64(available()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "kafka", Subsystem: "network", Name: "socketserver_memorypoolused",
			Help: "Bytes of requests read and not yet handled, counted when queued.max.request.bytes is set (SocketServer MemoryPoolUsed).",
		}, func() float64 { return float64(used()) }),
	)
}
