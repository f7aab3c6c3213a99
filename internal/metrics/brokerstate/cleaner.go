package brokerstate

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/karst-broker/karst/internal/storage"
)

// Cleaner is the log cleaner whose gauges the collector exports
// (*storage.Cleaner).
type Cleaner interface {
	Status() storage.CleanerStatus
}

var _ Cleaner = (*storage.Cleaner)(nil)

// Kafka's LogCleaner and LogCleanerManager gauges, named as the JMX
// exporter names kafka.log:type=LogCleaner,name=max-clean-time-secs and
// the others (lowercased, '-' as '_', the logDirectory tag as a label).
var (
	descCleanerBufferUtilization = prometheus.NewDesc("kafka_log_logcleaner_max_buffer_utilization_percent",
		"Highest offset map fill of the cleaner threads' last passes, in percent (LogCleaner max-buffer-utilization-percent).", nil, nil)
	descCleanerRecopy = prometheus.NewDesc("kafka_log_logcleaner_cleaner_recopy_percent",
		"Bytes the cleaner threads' last passes wrote over the bytes they read, in percent (LogCleaner cleaner-recopy-percent).", nil, nil)
	descCleanerMaxCleanTime = prometheus.NewDesc("kafka_log_logcleaner_max_clean_time_secs",
		"Longest of the cleaner threads' last passes, in whole seconds (LogCleaner max-clean-time-secs).", nil, nil)
	descCleanerMaxCompactionDelay = prometheus.NewDesc("kafka_log_logcleaner_max_compaction_delay_secs",
		"Longest time a log's max.compaction.lag.ms had been passed when a cleaner thread last chose, in whole seconds (LogCleaner max-compaction-delay-secs).", nil, nil)
	descCleanerDeadThreads = prometheus.NewDesc("kafka_log_logcleaner_deadthreadcount",
		"Cleaner threads that stopped on an unexpected error (LogCleaner DeadThreadCount).", nil, nil)
	descCleanerMaxDirty = prometheus.NewDesc("kafka_log_logcleanermanager_max_dirty_percent",
		"Dirty ratio of the dirtiest compacted log at the last choice, in percent (LogCleanerManager max-dirty-percent).", nil, nil)
	descCleanerSinceLastRun = prometheus.NewDesc("kafka_log_logcleanermanager_time_since_last_run_ms",
		"Milliseconds since a cleaner thread last looked for a log to clean (LogCleanerManager time-since-last-run-ms).", nil, nil)
	descCleanerUncleanable = prometheus.NewDesc("kafka_log_logcleanermanager_uncleanable_partitions_count",
		"Partitions of a log dir whose cleaning failed (LogCleanerManager uncleanable-partitions-count).", []string{"logdirectory"}, nil)
	descCleanerUncleanableBytes = prometheus.NewDesc("kafka_log_logcleanermanager_uncleanable_bytes",
		"Cleanable bytes of a log dir's uncleanable partitions (LogCleanerManager uncleanable-bytes).", []string{"logdirectory"}, nil)
)

var cleanerDescs = []*prometheus.Desc{descCleanerBufferUtilization, descCleanerRecopy, descCleanerMaxCleanTime,
	descCleanerMaxCompactionDelay, descCleanerDeadThreads, descCleanerMaxDirty, descCleanerSinceLastRun,
	descCleanerUncleanable, descCleanerUncleanableBytes}

func (c *Collector) collectCleaner(ch chan<- prometheus.Metric) {
	st := c.src.Cleaner.Status()
	gauge(ch, descCleanerBufferUtilization, float64(st.MaxBufferUtilizationPercent))
	gauge(ch, descCleanerRecopy, float64(st.CleanerRecopyPercent))
	gauge(ch, descCleanerMaxCleanTime, float64(st.MaxCleanTimeSecs))
	gauge(ch, descCleanerMaxCompactionDelay, float64(st.MaxCompactionDelaySecs))
	gauge(ch, descCleanerDeadThreads, float64(st.DeadThreadCount))
	gauge(ch, descCleanerMaxDirty, float64(st.MaxDirtyPercent))
	gauge(ch, descCleanerSinceLastRun, float64(st.TimeSinceLastRun.Milliseconds()))
	for dir, n := range st.UncleanablePartitions {
		gauge(ch, descCleanerUncleanable, float64(n), dir)
	}
	for dir, n := range st.UncleanableBytes {
		gauge(ch, descCleanerUncleanableBytes, float64(n), dir)
	}
}
