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
	requestTime     *prometheus.SummaryVec
	requestTable    requestTable
	outOfTable      func() *requestSeries // made on first use
	connections     prometheus.Gauge
	connectionsOpen *prometheus.CounterVec
	bytesIn         *topicCounter
	messagesIn      *topicCounter
	bytesOut        *topicCounter
	failedProduce   *topicCounter
	totalProduce    *topicCounter
	totalFetch      *topicCounter
	purgatory       [purgatories]prometheus.Gauge
	logFlush        prometheus.Summary
	principals      *principalConnections
	authentications *authentications
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
		bytesIn:       newTopicCounter("bytesin", "Record bytes appended (BrokerTopicMetrics BytesInPerSec)."),
		messagesIn:    newTopicCounter("messagesin", "Records appended (BrokerTopicMetrics MessagesInPerSec)."),
		bytesOut:      newTopicCounter("bytesout", "Record bytes sent to consumers (BrokerTopicMetrics BytesOutPerSec)."),
		failedProduce: newTopicCounter("failedproducerequests", "Partition appends refused (BrokerTopicMetrics FailedProduceRequestsPerSec)."),
		totalProduce:  newTopicCounter("totalproducerequests", "Partition appends asked for, refused or not (BrokerTopicMetrics TotalProduceRequestsPerSec)."),
		totalFetch:    newTopicCounter("totalfetchrequests", "Partition reads that returned records (BrokerTopicMetrics TotalFetchRequestsPerSec counts every partition read; Karst counts those with bytes)."),
	}
	m.principals = newPrincipalConnections()
	r.MustRegister(m.principals.gauge)
	m.authentications = newAuthentications()
	r.MustRegister(m.authentications.collectors()...)
	m.requests, m.requestTime = newRequestVecs()
	m.outOfTable = sync.OnceValue(func() *requestSeries { return m.lookUpRequestSeries(outOfTableLabel, outOfTableLabel) })
	purgatoryVec, purgatory := newPurgatoryGauges()
	m.purgatory, m.logFlush = purgatory, newLogFlushTimer()
	r.MustRegister(purgatoryVec, m.logFlush)
	r.MustRegister(m.requests, m.requestTime, m.connections, m.connectionsOpen,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, c := range m.topicCounters() {
		r.MustRegister(c)
	}
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
	m.totalProduce.add(topic, 1)
	m.bytesIn.add(topic, float64(bytes))
	m.messagesIn.add(topic, float64(records))
}

// AppendFailed records an append a topic refused.
func (m *Metrics) AppendFailed(topic string) {
	if m == nil {
		return
	}
	m.totalProduce.add(topic, 1)
	m.failedProduce.add(topic, 1)
}

// Fetched records record bytes sent from a topic.
func (m *Metrics) Fetched(topic string, bytes int64) {
	if m == nil || bytes == 0 {
		return
	}
	m.totalFetch.add(topic, 1)
	m.bytesOut.add(topic, float64(bytes))
}
