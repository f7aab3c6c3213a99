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

// TestTopicKeysAreKafka44s: the topic key table holds exactly Kafka 4.4's 37 topic configs, and
// the four keys 4.4 added validate and default as LogConfig does.
func TestTopicKeysAreKafka44s(t *testing.T) {
	if got := TopicKeyNames(); !slices.Equal(got, kafka44TopicKeys) {
		t.Fatalf("topic keys (%d):\n%v\nwant Kafka 4.4's (%d):\n%v", len(got), got, len(kafka44TopicKeys), kafka44TopicKeys)
	}
	for _, c := range []struct {
		key, dflt, bad string
		synonym        string
	}{
		{"errors.deadletterqueue.group.enable", "false", "maybe", ""},
		{"max.decompressed.message.bytes", "2147483639", "0", "max.decompressed.message.bytes"},
		{"remote.copy.lag.bytes", "-1", "-2", "log.remote.copy.lag.bytes"},
		{"remote.copy.lag.ms", "0", "-2", "log.remote.copy.lag.ms"},
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
