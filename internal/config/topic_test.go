package config

import (
	"errors"
	"reflect"
	"testing"
)

func sp(s string) *string { return &s }

func TestValidateTopicConfigs(t *testing.T) {
	tests := []struct {
		name    string
		configs map[string]*string
		msg     string // "" = valid
	}{
		{"empty", nil, ""},
		{"valid set", map[string]*string{"cleanup.policy": sp("compact,delete"), "retention.ms": sp("-1"), "segment.bytes": sp("1048576"), "min.cleanable.dirty.ratio": sp("0.1"), "leader.replication.throttled.replicas": sp("0:1,1:2"), "follower.replication.throttled.replicas": sp("*"), "compression.type": sp("zstd"), "message.timestamp.type": sp("LogAppendTime")}, ""},
		{"empty cleanup policy", map[string]*string{"cleanup.policy": sp("")}, ""},
		{"null values", map[string]*string{"retention.ms": nil, "cleanup.policy": nil}, "Null value not supported for topic configs: cleanup.policy,retention.ms"},
		{"unknown name", map[string]*string{"retention.hours": sp("1")}, "Unknown topic config name: retention.hours"},
		{"removed in 4.0, kept by Karst for Fetch v0-3", map[string]*string{"message.downconversion.enable": sp("false")}, ""},
		{"removed in 4.0", map[string]*string{"message.format.version": sp("0.10.0")}, "Unknown topic config name: message.format.version"},
		{"segment too small", map[string]*string{"segment.bytes": sp("1000")}, "Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576"},
		{"retention below -1", map[string]*string{"retention.ms": sp("-2")}, "Invalid value -2 for configuration retention.ms: Value must be at least -1"},
		{"bad policy", map[string]*string{"cleanup.policy": sp("compact,forever")}, "Invalid value forever for configuration cleanup.policy: String must be one of: compact, delete"},
		{"not an int", map[string]*string{"max.message.bytes": sp("big")}, "Invalid value big for configuration max.message.bytes: Not a number of type INT"},
		{"ratio above one", map[string]*string{"min.cleanable.dirty.ratio": sp("2")}, "Invalid value 2 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"},
		{"bad boolean", map[string]*string{"preallocate": sp("1")}, "Invalid value 1 for configuration preallocate: Expected value to be either true or false"},
		{"throttled list", map[string]*string{"leader.replication.throttled.replicas": sp("0-1")}, "Invalid value 0-1 for configuration leader.replication.throttled.replicas: leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."},
		{"lag conflict", map[string]*string{"min.compaction.lag.ms": sp("10"), "max.compaction.lag.ms": sp("5")}, "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"},
		{"tiered storage", map[string]*string{"remote.storage.enable": sp("true")}, "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."},
		{"lz4 level", map[string]*string{"compression.lz4.level": sp("0")}, "Invalid value 0 for configuration compression.lz4.level: Value must be at least 1"},
	}
	for _, tt := range tests {
		err := ValidateTopicConfigs(tt.configs)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%s: unexpected %v", tt.name, err)
			}
			continue
		}
		var re *RequestError
		if !errors.As(err, &re) || re.Code != ErrInvalidConfig || re.Message != tt.msg {
			t.Errorf("%s: err %v, want INVALID_CONFIG %q", tt.name, err, tt.msg)
		}
		if ErrorCode(err) != ErrInvalidConfig {
			t.Errorf("%s: code %d", tt.name, ErrorCode(err))
		}
	}
}

func TestValidateTopicConfigsAgainstBroker(t *testing.T) {
	b := mustBroker(t, map[string]string{"log.cleaner.max.compaction.lag.ms": "100"})
	if err := b.ValidateTopicConfigs(map[string]*string{"min.compaction.lag.ms": sp("200")}); err == nil ||
		err.Error() != "conflict topic config setting min.compaction.lag.ms (200) > max.compaction.lag.ms (100)" {
		t.Errorf("err %v", err)
	}
	if err := ValidateTopicConfigs(map[string]*string{"min.compaction.lag.ms": sp("200")}); err != nil {
		t.Errorf("without broker: %v", err)
	}
}

func TestEffectiveTopicConfig(t *testing.T) {
	b := mustBroker(t, map[string]string{
		"log.retention.hours":    "1",
		"log.roll.hours":         "2",
		"log.segment.bytes":      "2097152",
		"message.max.bytes":      "2000000",
		"log.cleanup.policy":     "compact",
		"compression.type":       "lz4",
		"log.local.retention.ms": "1000",
	})
	tc, err := EffectiveTopicConfig(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc.RetentionMs != msPerHour || tc.SegmentMs != 2*msPerHour || tc.SegmentBytes != 2097152 || tc.MaxMessageBytes != 2000000 {
		t.Errorf("broker defaults not used: %+v", tc)
	}
	if !tc.Compact || tc.Delete || tc.CompressionType != "lz4" || tc.LocalRetentionMs != 1000 || tc.LocalRetentionBytes != -1 {
		t.Errorf("policy/compression/local: %+v", tc)
	}
	if tc.SegmentIndexBytes != 10485760 || tc.MessageTimestampAfterMaxMs != 3600000 || tc.MinCleanableDirtyRatio != 0.5 {
		t.Errorf("defaults: %+v", tc)
	}
	tc, err = EffectiveTopicConfig(b, map[string]string{
		"retention.ms":          "5000",
		"cleanup.policy":        "compact,delete",
		"max.compaction.lag.ms": "60000",
		"unknown.key":           "ignored",
	})
	if err != nil {
		t.Fatal(err)
	}
	if tc.RetentionMs != 5000 || !tc.Compact || !tc.Delete || !tc.Overridden("retention.ms") || tc.Overridden("segment.ms") {
		t.Errorf("overrides: %+v", tc)
	}
	if tc.MaxSegmentMs() != 60000 {
		t.Errorf("max segment ms %d", tc.MaxSegmentMs())
	}
	if v, _ := tc.Value("retention.ms"); v != int64(5000) {
		t.Errorf("Value %v", v)
	}
	if _, err := EffectiveTopicConfig(b, map[string]string{"segment.ms": "soon"}); err == nil {
		t.Error("invalid override accepted")
	}
}

func TestTopicKeyTable(t *testing.T) {
	for _, n := range kafka44TopicKeys {
		if _, ok := TopicKey(n); !ok {
			t.Errorf("missing topic key %s", n)
		}
	}
	// Every synonym is a broker key of a compatible type, and each topic
	// default equals its synonym's default (Kafka keeps them in step).
	b := Default()
	for topic, syns := range topicSynonyms {
		k := topicKeys.byName[topic]
		for _, s := range syns {
			if _, ok := BrokerKey(s.Name); !ok {
				t.Errorf("%s: synonym %s is not a broker key", topic, s.Name)
			}
		}
		if got, want := formatValue(b.topicDefault(topic)), formatValue(topicKeys.defaults[topic]); got != want && k.Name != "flush.ms" {
			t.Errorf("%s: broker-derived default %s, topic default %s", topic, got, want)
		}
	}
	got := TopicSynonyms("retention.ms")
	want := []BrokerSynonym{{"log.retention.ms", 1}, {"log.retention.minutes", msPerMinute}, {"log.retention.hours", msPerHour}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("retention.ms synonyms %v", got)
	}
}
