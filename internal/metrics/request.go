package metrics

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The resolved-series table covers every API key and version Kafka has
// defined with room to spare; anything outside it still counts, through
// the slower label lookup.
const (
	requestTableKeys     = 100
	requestTableVersions = 32
)

// requestSeries is one (API, version)'s already-resolved series.
type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// requestTable holds the series of each (API key, version) seen so far.
// A label lookup hashes the label values and takes the vector's lock; at
// high request rates that showed up in broker profiles, so each pair is
// looked up once and then found by index.
type requestTable [requestTableKeys][requestTableVersions]atomic.Pointer[requestSeries]

// kafkaQuantiles are the percentiles the JMX exporter reads from a Yammer
// histogram (50thPercentile ... 999thPercentile), with the error each is
// allowed.
var kafkaQuantiles = map[float64]float64{0.5: 0.05, 0.75: 0.02, 0.95: 0.01, 0.98: 0.005, 0.99: 0.001, 0.999: 0.0001}

// newKafkaTimer is a Yammer timer as the JMX exporter writes it: the
// name with a quantile label per percentile, in milliseconds, plus _sum
// and _count.
func newKafkaTimer(subsystem, name, help string, labels ...string) *prometheus.SummaryVec {
	return prometheus.NewSummaryVec(prometheus.SummaryOpts{
		Namespace: "kafka", Subsystem: subsystem, Name: name, Help: help, Objectives: kafkaQuantiles,
	}, labels)
}

func newRequestVecs() (*prometheus.CounterVec, *prometheus.SummaryVec) {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "kafka", Subsystem: "network", Name: "requestmetrics_requests_total",
		Help: "Requests answered, by API and version (RequestMetrics RequestsPerSec).",
	}, []string{"request", "version"})
	latency := newKafkaTimer("network", "requestmetrics_totaltimems",
		"Milliseconds from a request's arrival to its response being queued, by API (RequestMetrics TotalTimeMs).", "request")
	return count, latency
}

// Request records one answered request of API apiKey at version.
func (m *Metrics) Request(apiKey, version int16, took time.Duration) {
	if m == nil {
		return
	}
	s := m.requestSeries(apiKey, version)
	s.count.Inc()
	s.latency.Observe(float64(took) / float64(time.Millisecond))
}

func (m *Metrics) requestSeries(apiKey, version int16) *requestSeries {
	// The unsigned conversion sends negative keys and versions out too.
	if uint16(apiKey) >= requestTableKeys || uint16(version) >= requestTableVersions {
		return m.outOfTable()
	}
	slot := &m.requestTable[apiKey][version]
	if s := slot.Load(); s != nil {
		return s
	}
	// Two first requests racing here resolve to the same series, so
	// whichever store lands last is as good as the other.
	s := m.lookUpRequestSeries(kmsg.NameForKey(apiKey), strconv.Itoa(int(version)))
	slot.Store(s)
	return s
}

// outOfTableLabel names the one series every request outside the table
// shares: their key and version come from the client, and a label per
// value would let one connection grow the broker's series without bound.
const outOfTableLabel = "other"

func (m *Metrics) lookUpRequestSeries(request, version string) *requestSeries {
	return &requestSeries{
		count:   m.requests.WithLabelValues(request, version),
		latency: m.requestTime.WithLabelValues(request),
	}
}
