package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"sync"
)

// Metrics is one broker's set of measures. A nil *Metrics is valid and
// records nothing, so tests and tools can run without one.
type Metrics struct {
	Registry *prometheus.Registry

	requests        *prometheus.CounterVec
	requestSeconds  *prometheus.HistogramVec
	requestTable    requestTable
	outOfTable      func() *requestSeries // made on first use
	connections     prometheus.Gauge
	connectionsOpen *prometheus.CounterVec
	bytesIn         *prometheus.CounterVec
	messagesIn      *prometheus.CounterVec
	bytesOut        *prometheus.CounterVec
	failedProduce   *prometheus.CounterVec
	purgatory       [purgatories]prometheus.Gauge
	logFlush        prometheus.Histogram
}

// New registers every measure, with the Go runtime and process collectors.
func New() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kafka", Subsystem: "server", Name: "connection_count",
			Help: "Open client connections.",
		}),
		connectionsOpen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "server", Name: "connections_accepted_total",
			Help: "Connections accepted, by listener.",
		}, []string{"listener"}),
		bytesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "server", Name: "brokertopicmetrics_bytes_in_total",
			Help: "Record bytes appended, by topic (BrokerTopicMetrics BytesInPerSec).",
		}, []string{"topic"}),
		messagesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "server", Name: "brokertopicmetrics_messages_in_total",
			Help: "Records appended, by topic (BrokerTopicMetrics MessagesInPerSec).",
		}, []string{"topic"}),
		bytesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "server", Name: "brokertopicmetrics_bytes_out_total",
			Help: "Record bytes sent to consumers, by topic (BrokerTopicMetrics BytesOutPerSec).",
		}, []string{"topic"}),
		failedProduce: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka", Subsystem: "server", Name: "brokertopicmetrics_failed_produce_requests_total",
			Help: "Partition appends refused, by topic (BrokerTopicMetrics FailedProduceRequestsPerSec).",
		}, []string{"topic"}),
	}
	m.requests, m.requestSeconds = newRequestVecs()
	m.outOfTable = sync.OnceValue(func() *requestSeries { return m.lookUpRequestSeries(outOfTableLabel, outOfTableLabel) })
	purgatoryVec, purgatory := newPurgatoryGauges()
	m.purgatory, m.logFlush = purgatory, newLogFlushHistogram()
	r.MustRegister(purgatoryVec, m.logFlush)
	r.MustRegister(m.requests, m.requestSeconds, m.connections, m.connectionsOpen, m.bytesIn, m.messagesIn, m.bytesOut, m.failedProduce,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ConnectionOpened and ConnectionClosed track open connections.
func (m *Metrics) ConnectionOpened(listener string) {
	if m == nil {
		return
	}
	m.connections.Inc()
	m.connectionsOpen.WithLabelValues(listener).Inc()
}

// ConnectionClosed is the end of a connection ConnectionOpened counted.
func (m *Metrics) ConnectionClosed() {
	if m == nil {
		return
	}
	m.connections.Dec()
}

// Appended records a successful append of records to a topic.
func (m *Metrics) Appended(topic string, bytes, records int) {
	if m == nil {
		return
	}
	m.bytesIn.WithLabelValues(topic).Add(float64(bytes))
	m.messagesIn.WithLabelValues(topic).Add(float64(records))
}

// AppendFailed records an append a topic refused.
func (m *Metrics) AppendFailed(topic string) {
	if m == nil {
		return
	}
	m.failedProduce.WithLabelValues(topic).Inc()
}

// Fetched records record bytes sent from a topic.
func (m *Metrics) Fetched(topic string, bytes int64) {
	if m == nil || bytes == 0 {
		return
	}
	m.bytesOut.WithLabelValues(topic).Add(float64(bytes))
}
