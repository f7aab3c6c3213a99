package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func newLogFlushHistogram() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "kafka", Subsystem: "log", Name: "flush_time_seconds",
		Help: "Duration of each log flush (one group-committed fsync round of a partition log; Kafka's LogFlushStats LogFlushRateAndTimeMs).",
		// 50µs .. ~3.3s: a page-cache fsync on NVMe up to a stalled disk.
		Buckets: prometheus.ExponentialBuckets(0.00005, 2, 17),
	})
}

// LogFlushed records one fsync round of a partition log.
func (m *Metrics) LogFlushed(took time.Duration) {
	if m == nil {
		return
	}
	m.logFlush.Observe(took.Seconds())
}
