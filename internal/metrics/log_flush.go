package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func newLogFlushTimer() prometheus.Summary {
	return newKafkaTimer("log", "logflushstats_logflushrateandtimems",
		"Milliseconds of each log flush: one group-committed fsync round of a partition log (LogFlushStats LogFlushRateAndTimeMs).").WithLabelValues().(prometheus.Summary)
}

// LogFlushed records one fsync round of a partition log.
func (m *Metrics) LogFlushed(took time.Duration) {
	if m == nil {
		return
	}
	m.logFlush.Observe(float64(took) / float64(time.Millisecond))
}
