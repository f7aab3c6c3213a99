package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// topicCounter is one BrokerTopicMetrics meter as the JMX exporter writes
// it: a series per topic beside one without a topic label for all topics,
// both under the same name (Kafka's MBean without a topic tag is the
// all-topics one). Client_golang refuses two label sets under one name
// for a checked collector, so this one describes nothing and is gathered
// unchecked.
type topicCounter struct {
	all      prometheus.Counter
	perTopic *prometheus.CounterVec
}

func newTopicCounter(name, help string) *topicCounter {
	opts := prometheus.CounterOpts{Namespace: "kafka", Subsystem: "server", Name: "brokertopicmetrics_" + name + "_total", Help: help}
	return &topicCounter{all: prometheus.NewCounter(opts), perTopic: prometheus.NewCounterVec(opts, []string{"topic"})}
}

func (c *topicCounter) add(topic string, v float64) {
	c.all.Add(v)
	c.perTopic.WithLabelValues(topic).Add(v)
}

// Describe sends nothing, which makes the collector unchecked.
func (c *topicCounter) Describe(chan<- *prometheus.Desc) {}

func (c *topicCounter) Collect(ch chan<- prometheus.Metric) {
	c.all.Collect(ch)
	c.perTopic.Collect(ch)
}

// ForgetTopic drops a deleted topic's per-topic series, as Kafka removes
// a topic's BrokerTopicMetrics MBeans when the topic goes; the all-topics
// series keep what the topic added.
func (m *Metrics) ForgetTopic(topic string) {
	if m == nil {
		return
	}
	for _, c := range m.topicCounters() {
		c.perTopic.DeleteLabelValues(topic)
	}
}

func (m *Metrics) topicCounters() []*topicCounter {
	return []*topicCounter{m.bytesIn, m.messagesIn, m.bytesOut, m.failedProduce, m.totalProduce, m.totalFetch}
}
