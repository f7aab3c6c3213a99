package log

import "time"

// CompactionConfig is the part of a topic's configuration the log cleaner
// reads (Kafka's LogConfig compaction keys).
type CompactionConfig struct {
	Compact                bool          // cleanup.policy contains "compact"
	MinCleanableDirtyRatio float64       // min.cleanable.dirty.ratio (default 0.5)
	MinCompactionLag       time.Duration // min.compaction.lag.ms (default 0)
	MaxCompactionLag       time.Duration // max.compaction.lag.ms (default forever)
	DeleteRetention        time.Duration // delete.retention.ms: how long tombstones and empty-transaction markers outlive their first clean (default 1 day)
}
