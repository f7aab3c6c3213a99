package storage

import (
	"math"
	"time"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// LogConfig is the configuration of a partition log of a topic whose
// configuration is tc on a broker configured as broker (both from
// config.LogConfigs; the broker gives producer.id.expiration.ms). A topic that sets
// flush.messages or flush.ms — itself or through the broker's
// log.flush.* keys — gets Kafka's page-cache durability with those flush
// intervals; otherwise every acknowledged write is fsynced, which Kafka's
// defaults (never flush) would turn off.
func LogConfig(broker *config.Broker, tc *config.TopicConfig) klog.Config {
	cfg := klog.DefaultConfig()
	cfg.ProducerIDExpiration = millis(int64(broker.Int("producer.id.expiration.ms")))
	cfg.SegmentBytes = int64(tc.SegmentBytes)
	cfg.SegmentTime = millis(tc.MaxSegmentMs())
	cfg.SegmentIndexBytes = int(tc.SegmentIndexBytes)
	cfg.IndexIntervalBytes = int(tc.IndexIntervalBytes)
	cfg.RetentionTime = millis(tc.RetentionMs)
	cfg.RetentionBytes = tc.RetentionBytes
	cfg.RetentionOff = !tc.Delete
	cfg.Compaction = klog.CompactionConfig{Compact: tc.Compact, MinCleanableDirtyRatio: tc.MinCleanableDirtyRatio,
		MinCompactionLag: millis(tc.MinCompactionLagMs), MaxCompactionLag: millis(tc.MaxCompactionLagMs),
		DeleteRetention: millis(tc.DeleteRetentionMs)}
	// A flush interval at Kafka's default (Long.MAX_VALUE, never) asks for
	// nothing: it keeps fsync, however it was set.
	if tc.Configured("flush.messages") && tc.FlushMessages != math.MaxInt64 {
		cfg.FlushMessages = tc.FlushMessages
		cfg.Durability = klog.PageCache
	}
	if tc.Configured("flush.ms") && tc.FlushMs != math.MaxInt64 {
		cfg.FlushInterval = millis(tc.FlushMs)
		cfg.Durability = klog.PageCache
	}
	cfg.MaxMessageBytes = int(tc.MaxMessageBytes)
	// 0 is a real bound ("no distance at all"), which the log's
	// zero-means-default rule would otherwise lose.
	cfg.TimestampBeforeMax = max(millis(tc.MessageTimestampBeforeMaxMs), time.Nanosecond)
	cfg.TimestampAfterMax = max(millis(tc.MessageTimestampAfterMaxMs), time.Nanosecond)
	cfg.FileDeleteDelay = millis(tc.FileDeleteDelayMs)
	cfg.TimestampType = record.CreateTime
	if tc.MessageTimestampType == "LogAppendTime" {
		cfg.TimestampType = record.LogAppendTime
	}
	return cfg
}

// millis converts a config's milliseconds to a Duration, saturating where
// Kafka's Long.MAX_VALUE ("forever") does not fit.
func millis(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}
