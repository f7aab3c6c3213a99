package config

import (
	"slices"
	"testing"
)

// kafka44TopicKeys is every topic config Apache Kafka 4.4.0 answers for a created topic
// (CreateTopics v5+, DescribeConfigs), as the differential suite saw them.
var kafka44TopicKeys = []string{
	"cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type",
	"compression.zstd.level", "delete.retention.ms", "errors.deadletterqueue.group.enable",
	"file.delete.delay.ms", "flush.messages", "flush.ms", "follower.replication.throttled.replicas",
	"index.interval.bytes", "leader.replication.throttled.replicas", "local.retention.bytes",
	"local.retention.ms", "max.compaction.lag.ms", "max.decompressed.message.bytes", "max.message.bytes",
	"message.timestamp.after.max.ms", "message.timestamp.before.max.ms", "message.timestamp.type",
	"min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas", "preallocate",
	"remote.copy.lag.bytes", "remote.copy.lag.ms", "remote.log.copy.disable", "remote.log.delete.on.disable",
	"remote.storage.enable", "retention.bytes", "retention.ms", "segment.bytes", "segment.index.bytes",
	"segment.jitter.ms", "segment.ms", "unclean.leader.election.enable",
}

// karstTopicKeysBeyondKafka44 are the topic configs Karst keeps that Kafka 4
// removed: message.downconversion.enable (Kafka 3.x) governs Fetch v0-3,
// which Karst serves and Kafka 4 does not (KIP-896).
var karstTopicKeysBeyondKafka44 = []string{"message.downconversion.enable"}

// TestTopicKeysAreKafka44s: the topic key table holds exactly Kafka 4.4's 37 topic configs
// (and karstTopicKeysBeyondKafka44), and the four keys 4.4 added validate and default as
// LogConfig does.
func TestTopicKeysAreKafka44s(t *testing.T) {
	want := slices.Sorted(slices.Values(append(slices.Clone(kafka44TopicKeys), karstTopicKeysBeyondKafka44...)))
	if got := TopicKeyNames(); !slices.Equal(got, want) {
		t.Fatalf("topic keys (%d):\n%v\nwant Kafka 4.4's and Karst's legacy ones (%d):\n%v", len(got), got, len(want), want)
	}
	for _, c := range []struct {
		key, dflt, bad string
		synonym        string
	}{
		{"errors.deadletterqueue.group.enable", "false", "maybe", ""},
		{"max.decompressed.message.bytes", "2147483639", "0", "max.decompressed.message.bytes"},
		{"remote.copy.lag.bytes", "-1", "-2", "log.remote.copy.lag.bytes"},
		{"remote.copy.lag.ms", "0", "-2", "log.remote.copy.lag.ms"},
		{"message.downconversion.enable", "true", "no", "log.message.downconversion.enable"},
	} {
		k, _ := TopicKey(c.key)
		if k.Default != c.dflt {
			t.Errorf("%s: default %q, want %q", c.key, k.Default, c.dflt)
		}
		if err := ValidateTopicConfigs(map[string]*string{c.key: &c.bad}); err == nil {
			t.Errorf("%s=%s accepted", c.key, c.bad)
		}
		syns := TopicSynonyms(c.key)
		if (c.synonym == "") != (len(syns) == 0) || (c.synonym != "" && syns[0].Name != c.synonym) {
			t.Errorf("%s: synonyms %v, want %q", c.key, syns, c.synonym)
		}
	}
}
