package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kafka error codes the validation functions map to.
const (
	ErrInvalidConfig  int16 = 40 // INVALID_CONFIG
	ErrInvalidRequest int16 = 42 // INVALID_REQUEST
)

// RequestError is a refusal with the Kafka error code and message a handler
// should return for the resource.
type RequestError struct {
	Code    int16
	Message string
}

func (e *RequestError) Error() string { return e.Message }

// KafkaErrorCode lets a package that must not import this one (the
// metadata operations validate through an interface) answer the code the
// error names.
func (e *RequestError) KafkaErrorCode() int16 { return e.Code }

// ErrorCode maps an error from this package to a Kafka error code: a
// *RequestError carries its own, a *ConfigError is INVALID_CONFIG.
func ErrorCode(err error) int16 {
	switch e := err.(type) {
	case nil:
		return 0
	case *RequestError:
		return e.Code
	}
	return ErrInvalidConfig
}

// TopicConfig is a topic's effective log configuration: its overrides over
// the broker's defaults over LogConfig's defaults.
type TopicConfig struct {
	CleanupPolicy               []string
	Compact, Delete             bool
	CompressionType             string
	CompressionGzipLevel        int32
	CompressionLZ4Level         int32
	CompressionZstdLevel        int32
	DeleteRetentionMs           int64
	FileDeleteDelayMs           int64
	FlushMessages               int64
	FlushMs                     int64
	FollowerThrottledReplicas   []string
	IndexIntervalBytes          int32
	LeaderThrottledReplicas     []string
	LocalRetentionBytes         int64 // -2 resolved to RetentionBytes
	LocalRetentionMs            int64 // -2 resolved to RetentionMs
	MaxCompactionLagMs          int64
	MaxMessageBytes             int32
	MessageTimestampAfterMaxMs  int64
	MessageTimestampBeforeMaxMs int64
	MessageTimestampType        string // CreateTime or LogAppendTime
	MessageDownConversion       bool   // message.downconversion.enable
	MinCleanableDirtyRatio      float64
	MinCompactionLagMs          int64
	MinInSyncReplicas           int32
	Preallocate                 bool
	RemoteLogCopyDisable        bool
	RemoteLogDeleteOnDisable    bool
	RemoteStorageEnable         bool
	RetentionBytes              int64
	RetentionMs                 int64 // -1: no time limit
	SegmentBytes                int32
	SegmentIndexBytes           int32
	SegmentJitterMs             int64
	SegmentMs                   int64
	UncleanLeaderElectionEnable bool

	values     map[string]any
	overridden map[string]bool
	configured map[string]bool
}

// Value returns a topic key's effective typed value.
func (t *TopicConfig) Value(name string) (any, bool) {
	v, ok := t.values[name]
	return cloneValue(v), ok
}

// Overridden reports whether the topic itself sets the key.
func (t *TopicConfig) Overridden(name string) bool { return t.overridden[name] }

// Configured reports whether the topic or a broker layer (one of the key's
// synonyms, in any dynamic or static layer) sets the key, rather than it
// keeping LogConfig's default.
func (t *TopicConfig) Configured(name string) bool { return t.configured[name] }

// MaxSegmentMs is how long the active segment may live: segment.ms, or the
// smaller max.compaction.lag.ms for compacted topics (Kafka's maxSegmentMs).
func (t *TopicConfig) MaxSegmentMs() int64 {
	if t.Compact && t.MaxCompactionLagMs > 0 && t.MaxCompactionLagMs < t.SegmentMs {
		return t.MaxCompactionLagMs
	}
	return t.SegmentMs
}

// convert turns a numeric value into the type of a topic key.
func convert(v any, t Type, factor int64) any {
	n, ok := v.(int32)
	switch {
	case ok && t == TypeLong:
		return int64(n) * factor
	case ok:
		return n
	}
	if l, ok := v.(int64); ok {
		return l * factor
	}
	return v
}

// topicDefault is the broker-level value of a topic key: its first broker
// synonym that is not null, else the topic key's own default.
func (b *Broker) topicDefault(name string) any {
	k := topicKeys.byName[name]
	for _, s := range topicSynonyms[name] {
		if v, ok := b.values[s.Name]; ok {
			v = convert(v, k.Type, s.Factor)
			if name == "retention.ms" && v.(int64) < 0 {
				v = int64(-1)
			}
			return v
		}
	}
	return topicKeys.defaults[name]
}

// TopicDefaults are the values a topic without overrides gets, by topic key.
func (b *Broker) TopicDefaults() map[string]any {
	out := make(map[string]any, len(topicKeys.names))
	for _, n := range topicKeys.names {
		out[n] = cloneValue(b.topicDefault(n))
	}
	return out
}

// LogRetentionMs is log.retention.ms, else minutes, else hours (-1: forever).
func (b *Broker) LogRetentionMs() int64 { return b.topicDefault("retention.ms").(int64) }

// LogRollMs is log.roll.ms, else log.roll.hours.
func (b *Broker) LogRollMs() int64 { return b.topicDefault("segment.ms").(int64) }

// LogRollJitterMs is log.roll.jitter.ms, else log.roll.jitter.hours.
func (b *Broker) LogRollJitterMs() int64 { return b.topicDefault("segment.jitter.ms").(int64) }

// LogFlushIntervalMs is log.flush.interval.ms, else log.flush.scheduler.interval.ms.
func (b *Broker) LogFlushIntervalMs() int64 { return b.topicDefault("flush.ms").(int64) }

// OffsetsRetentionMs is offsets.retention.minutes in milliseconds.
func (b *Broker) OffsetsRetentionMs() int64 {
	return int64(b.Int("offsets.retention.minutes")) * msPerMinute
}

// EffectiveTopicConfig resolves a topic's configuration. Overrides with
// names that are not topic keys are ignored (Kafka ignores them in stored
// configs); an override that does not parse is an error.
func EffectiveTopicConfig(b *Broker, topicOverrides map[string]string) (*TopicConfig, error) {
	t := &TopicConfig{values: b.TopicDefaults(), overridden: map[string]bool{}, configured: map[string]bool{}}
	for name, synonyms := range topicSynonyms {
		for _, s := range synonyms {
			t.configured[name] = t.configured[name] || b.isSet(s.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(topicOverrides)) {
		k, ok := topicKeys.byName[name]
		if !ok {
			continue
		}
		v, err := k.parse(topicOverrides[name])
		if err != nil {
			return nil, err
		}
		t.values[name] = v
		t.overridden[name] = true
		t.configured[name] = true
	}
	v := t.values
	t.CleanupPolicy = slices.Clone(v["cleanup.policy"].([]string))
	for _, p := range t.CleanupPolicy {
		t.Compact = t.Compact || strings.EqualFold(p, "compact")
		t.Delete = t.Delete || strings.EqualFold(p, "delete")
	}
	t.CompressionType = v["compression.type"].(string)
	t.CompressionGzipLevel = v["compression.gzip.level"].(int32)
	t.CompressionLZ4Level = v["compression.lz4.level"].(int32)
	t.CompressionZstdLevel = v["compression.zstd.level"].(int32)
	t.DeleteRetentionMs = v["delete.retention.ms"].(int64)
	t.FileDeleteDelayMs = v["file.delete.delay.ms"].(int64)
	t.FlushMessages = v["flush.messages"].(int64)
	t.FlushMs = v["flush.ms"].(int64)
	t.FollowerThrottledReplicas = slices.Clone(v["follower.replication.throttled.replicas"].([]string))
	t.IndexIntervalBytes = v["index.interval.bytes"].(int32)
	t.LeaderThrottledReplicas = slices.Clone(v["leader.replication.throttled.replicas"].([]string))
	t.MaxCompactionLagMs = v["max.compaction.lag.ms"].(int64)
	t.MaxMessageBytes = v["max.message.bytes"].(int32)
	t.MessageTimestampAfterMaxMs = v["message.timestamp.after.max.ms"].(int64)
	t.MessageTimestampBeforeMaxMs = v["message.timestamp.before.max.ms"].(int64)
	t.MessageTimestampType = v["message.timestamp.type"].(string)
	t.MessageDownConversion = v["message.downconversion.enable"].(bool)
	t.MinCleanableDirtyRatio = v["min.cleanable.dirty.ratio"].(float64)
	t.MinCompactionLagMs = v["min.compaction.lag.ms"].(int64)
	t.MinInSyncReplicas = v["min.insync.replicas"].(int32)
	t.Preallocate = v["preallocate"].(bool)
	t.RemoteLogCopyDisable = v["remote.log.copy.disable"].(bool)
	t.RemoteLogDeleteOnDisable = v["remote.log.delete.on.disable"].(bool)
	t.RemoteStorageEnable = v["remote.storage.enable"].(bool)
	t.RetentionBytes = v["retention.bytes"].(int64)
	t.RetentionMs = v["retention.ms"].(int64)
	t.SegmentBytes = v["segment.bytes"].(int32)
	t.SegmentIndexBytes = v["segment.index.bytes"].(int32)
	t.SegmentJitterMs = v["segment.jitter.ms"].(int64)
	t.SegmentMs = v["segment.ms"].(int64)
	t.UncleanLeaderElectionEnable = v["unclean.leader.election.enable"].(bool)
	t.LocalRetentionBytes = v["local.retention.bytes"].(int64)
	if t.LocalRetentionBytes == -2 {
		t.LocalRetentionBytes = t.RetentionBytes
	}
	t.LocalRetentionMs = v["local.retention.ms"].(int64)
	if t.LocalRetentionMs == -2 {
		t.LocalRetentionMs = t.RetentionMs
	}
	return t, nil
}

// ValidateTopicConfigs checks topic overrides for CreateTopics or
// AlterConfigs without a broker context (against LogConfig's defaults).
// See Broker.ValidateTopicConfigs.
func ValidateTopicConfigs(configs map[string]*string) error {
	return validateTopicConfigs(nil, configs)
}

// ValidateTopicConfigs checks a topic's complete set of overrides the way
// Kafka's controller does, with Kafka's INVALID_CONFIG messages: a nil value
// ("Null value not supported for topic configs: a,b"), an unknown name
// ("Unknown topic config name: x"), a bad value ("Invalid value v for
// configuration k: rule"), min.compaction.lag.ms above
// max.compaction.lag.ms, and remote.storage.enable=true (Karst has no tiered
// storage, as a Kafka broker with it disabled). Every error is a
// *RequestError with Code ErrInvalidConfig.
func (b *Broker) ValidateTopicConfigs(configs map[string]*string) error {
	return validateTopicConfigs(b, configs)
}

func validateTopicConfigs(b *Broker, configs map[string]*string) error {
	names := slices.Sorted(maps.Keys(configs))
	var nulls []string
	for _, n := range names {
		if configs[n] == nil {
			nulls = append(nulls, n)
		}
	}
	if len(nulls) > 0 {
		return &RequestError{ErrInvalidConfig, "Null value not supported for topic configs: " + strings.Join(nulls, ",")}
	}
	for _, n := range names {
		if _, ok := topicKeys.byName[n]; !ok {
			return &RequestError{ErrInvalidConfig, "Unknown topic config name: " + n}
		}
	}
	values := maps.Clone(topicKeys.defaults)
	if b != nil {
		values = b.TopicDefaults()
	}
	for _, n := range names {
		v, err := topicKeys.byName[n].parse(*configs[n])
		if err != nil {
			return &RequestError{ErrInvalidConfig, err.Error()}
		}
		values[n] = v
	}
	if min, max := values["min.compaction.lag.ms"].(int64), values["max.compaction.lag.ms"].(int64); min > max {
		return &RequestError{ErrInvalidConfig, fmt.Sprintf("conflict topic config setting min.compaction.lag.ms (%d) > max.compaction.lag.ms (%d)", min, max)}
	}
	if values["remote.storage.enable"].(bool) {
		return &RequestError{ErrInvalidConfig, "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."}
	}
	return nil
}
