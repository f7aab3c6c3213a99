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

func newRequestVecs() (*prometheus.CounterVec, *prometheus.HistogramVec) {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "kafka", Subsystem: "network", Name: "requests_total",
		Help: "Requests answered, by API and version (Kafka's RequestMetrics RequestsPerSec).",
	}, []string{"request", "version"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "kafka", Subsystem: "network", Name: "request_total_time_seconds",
		Help: "Time from a request's arrival to its response being queued, by API and version " +
			"(Kafka's RequestMetrics TotalTimeMs, which is per API only; the version label is added so latency can be compared across client versions).",
		Buckets: prometheus.ExponentialBuckets(0.00005, 2, 18),
	}, []string{"request", "version"})
	return count, latency
}

// Request records one answered request of API apiKey at version.
func (m *Metrics) Request(apiKey, version int16, took time.Duration) {
	if m == nil {
		return
	}
	s := m.requestSeries(apiKey, version)
	s.count.Inc()
	s.latency.Observe(took.Seconds())
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
		latency: m.requestSeconds.WithLabelValues(request, version),
	}
}
