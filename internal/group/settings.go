package group

import (
	"time"

	"github.com/karst-broker/karst/internal/config"
)

// ConfigFrom reads the coordinator's settings from the broker's; nil
// gives Kafka's defaults.
func ConfigFrom(b *config.Broker) Config {
	cfg := DefaultConfig()
	if b == nil {
		return cfg
	}
	ms := func(key string) time.Duration { return time.Duration(b.Int(key)) * time.Millisecond }
	cfg.MinSessionTimeout = ms("group.min.session.timeout.ms")
	cfg.MaxSessionTimeout = ms("group.max.session.timeout.ms")
	cfg.InitialRebalanceDelay = ms("group.initial.rebalance.delay.ms")
	cfg.MaxSize = int(b.Int("group.max.size"))
	cfg.OffsetMetadataMaxBytes = int(b.Int("offset.metadata.max.bytes"))
	cfg.OffsetsTopicPartitions = b.Int("offsets.topic.num.partitions")
	cfg.OffsetsRetention = time.Duration(b.Int("offsets.retention.minutes")) * time.Minute
	cfg.OffsetsRetentionCheckInterval = time.Duration(b.Long("offsets.retention.check.interval.ms")) * time.Millisecond
	return cfg
}

// SegmentBytes is offsets.topic.segment.bytes, or 0 for the default.
func SegmentBytes(b *config.Broker) int32 {
	if b == nil {
		return 0
	}
	return b.Int("offsets.topic.segment.bytes")
}
