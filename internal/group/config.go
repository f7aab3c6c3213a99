package group

import "time"

// Config holds the broker settings the coordinator follows (Kafka's
// group.* and offsets.* keys).
type Config struct {
	MinSessionTimeout     time.Duration // group.min.session.timeout.ms
	MaxSessionTimeout     time.Duration // group.max.session.timeout.ms
	InitialRebalanceDelay time.Duration // group.initial.rebalance.delay.ms
	MaxSize               int           // group.max.size
	// NewMemberJoinTimeout bounds how long a member that joined without an
	// id may wait in a rebalance before it is dropped (Kafka: 5 minutes).
	NewMemberJoinTimeout time.Duration
	// OffsetMetadataMaxBytes is offset.metadata.max.bytes.
	OffsetMetadataMaxBytes int
	// OffsetsTopicPartitions is offsets.topic.num.partitions.
	OffsetsTopicPartitions int32
	// OffsetsRetention is offsets.retention.minutes: how long an empty
	// group's committed offsets are kept (expiry.go).
	OffsetsRetention time.Duration
	// OffsetsRetentionCheckInterval is
	// offsets.retention.check.interval.ms.
	OffsetsRetentionCheckInterval time.Duration
}

// DefaultConfig is Kafka's defaults.
func DefaultConfig() Config {
	return Config{
		MinSessionTimeout:             6 * time.Second,
		MaxSessionTimeout:             30 * time.Minute,
		InitialRebalanceDelay:         3 * time.Second,
		MaxSize:                       1<<31 - 1,
		NewMemberJoinTimeout:          5 * time.Minute,
		OffsetMetadataMaxBytes:        4096,
		OffsetsTopicPartitions:        50,
		OffsetsRetention:              7 * 24 * time.Hour,
		OffsetsRetentionCheckInterval: 10 * time.Minute,
	}
}
