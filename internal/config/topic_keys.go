package config

import (
	"slices"
	"strings"
)

// BrokerSynonym is a broker key that supplies a topic key's default, with the
// factor that converts its unit to the topic key's (hours to ms, ...).
type BrokerSynonym struct {
	Name   string
	Factor int64
}

const (
	msPerMinute = 60 * 1000
	msPerHour   = 60 * msPerMinute
)

// topicKeyList is every topic-level config of Apache Kafka 4.x (LogConfig).
// Defaults are LogConfig's own; a topic without an override takes its broker
// synonym's value instead (see topicSynonyms).
var topicKeyList = []Key{
	def("cleanup.policy", TypeList, "delete", in("compact", "delete"), ReadOnly, "Retention policy for old segments: delete, compact, or both."),
	def("compression.type", TypeString, "producer", in(compressionTypes...), ReadOnly, "Final compression of the topic's data; producer keeps the producer's."),
	def("compression.gzip.level", TypeInt, "-1", gzipLevel, ReadOnly, "Compression level when compression.type is gzip."),
	def("compression.lz4.level", TypeInt, "9", between(1, 17), ReadOnly, "Compression level when compression.type is lz4."),
	def("compression.zstd.level", TypeInt, "3", between(-131072, 22), ReadOnly, "Compression level when compression.type is zstd."),
	def("delete.retention.ms", TypeLong, "86400000", atLeast(0), ReadOnly, "How long tombstones are kept on compacted topics."),
	def("errors.deadletterqueue.group.enable", TypeBoolean, "false", nil, ReadOnly, "Let share groups write undeliverable records to this topic as a dead-letter queue (Kafka 4.4; Karst has no share groups yet)."),
	def("file.delete.delay.ms", TypeLong, "60000", atLeast(0), ReadOnly, "Delay before a deleted segment's files are removed."),
	def("flush.messages", TypeLong, maxInt64, atLeast(1), ReadOnly, "Messages appended before a forced fsync."),
	def("flush.ms", TypeLong, maxInt64, atLeast(0), ReadOnly, "Time before a forced fsync."),
	def("follower.replication.throttled.replicas", TypeList, "", throttledReplicas, ReadOnly, "Replicas throttled on the follower side, or *."),
	def("index.interval.bytes", TypeInt, "4096", atLeast(0), ReadOnly, "Bytes between offset index entries."),
	def("leader.replication.throttled.replicas", TypeList, "", throttledReplicas, ReadOnly, "Replicas throttled on the leader side, or *."),
	def("local.retention.bytes", TypeLong, "-2", atLeast(-2), ReadOnly, "Local bytes kept for tiered topics; -2 means retention.bytes."),
	def("local.retention.ms", TypeLong, "-2", atLeast(-2), ReadOnly, "Local time kept for tiered topics; -2 means retention.ms."),
	def("max.compaction.lag.ms", TypeLong, maxInt64, atLeast(1), ReadOnly, "Longest time a record may stay uncompacted."),
	def("max.decompressed.message.bytes", TypeInt, "2147483639", between(1, 2147483639), ReadOnly, "Largest decompressed size of one record (Kafka 4.4; accepted, not enforced by Karst)."),
	def("max.message.bytes", TypeInt, "1048588", atLeast(0), ReadOnly, "Largest record batch accepted for this topic."),
	def("message.downconversion.enable", TypeBoolean, "true", nil, ReadOnly, "Whether Fetch v0-3 may down-convert this topic's records to message formats v0 and v1; false answers them UNSUPPORTED_VERSION (Kafka 3.x; removed in Kafka 4, kept by Karst)."),
	def("message.timestamp.after.max.ms", TypeLong, "3600000", atLeast(0), ReadOnly, "How far a CreateTime timestamp may lie after the broker's clock."),
	def("message.timestamp.before.max.ms", TypeLong, maxInt64, atLeast(0), ReadOnly, "How far a CreateTime timestamp may lie before the broker's clock."),
	def("message.timestamp.type", TypeString, "CreateTime", in("CreateTime", "LogAppendTime"), ReadOnly, "CreateTime keeps producer timestamps; LogAppendTime uses the broker's."),
	def("min.cleanable.dirty.ratio", TypeDouble, "0.5", between(0, 1), ReadOnly, "Smallest dirty ratio at which the log is compacted."),
	def("min.compaction.lag.ms", TypeLong, "0", atLeast(0), ReadOnly, "Shortest time a record stays uncompacted."),
	def("min.insync.replicas", TypeInt, "1", atLeast(1), ReadOnly, "With acks=all, the fewest in-sync replicas that must acknowledge a write."),
	def("preallocate", TypeBoolean, "false", nil, ReadOnly, "Preallocate segment files."),
	def("remote.copy.lag.bytes", TypeLong, "-1", atLeast(-1), ReadOnly, "Bytes of newer local data after which a segment may be copied to remote storage; -1 derives it from local.retention.bytes (not used by Karst)."),
	def("remote.copy.lag.ms", TypeLong, "0", atLeast(-1), ReadOnly, "Time since a segment's last record after which it may be copied to remote storage; -1 derives it from local.retention.ms (not used by Karst)."),
	def("remote.log.copy.disable", TypeBoolean, "false", nil, ReadOnly, "Stop copying segments to remote storage (tiered topics)."),
	def("remote.log.delete.on.disable", TypeBoolean, "false", nil, ReadOnly, "Delete remote data when remote storage is turned off."),
	def("remote.storage.enable", TypeBoolean, "false", nil, ReadOnly, "Tier the topic's segments to remote storage (not supported by Karst)."),
	def("retention.bytes", TypeLong, "-1", nil, ReadOnly, "Largest partition size before old segments are discarded; -1 means no limit."),
	def("retention.ms", TypeLong, "604800000", atLeast(-1), ReadOnly, "How long a segment is kept; -1 means forever."),
	def("segment.bytes", TypeInt, "1073741824", atLeast(1048576), ReadOnly, "Largest size of one segment file."),
	def("segment.index.bytes", TypeInt, "10485760", atLeast(4), ReadOnly, "Largest size of an offset index file."),
	def("segment.jitter.ms", TypeLong, "0", atLeast(0), ReadOnly, "Largest random jitter subtracted from segment.ms."),
	def("segment.ms", TypeLong, "604800000", atLeast(1), ReadOnly, "Time after which a segment is rolled even if not full."),
	def("unclean.leader.election.enable", TypeBoolean, "false", nil, ReadOnly, "Allow an out-of-sync replica to become leader, losing data."),
}

var topicKeys = newKeyTable(topicKeyList)

// quietTopicKeys are Karst's topic keys beyond Kafka 4.4's, described only
// for a topic that overrides them or a request that names them, so a
// Kafka 4 client's DescribeConfigs and CreateTopics see Kafka 4.4's set.
// message.downconversion.enable is Kafka 3.x's switch for Fetch v0-3,
// which Kafka 4 no longer serves.
var quietTopicKeys = map[string]bool{"message.downconversion.enable": true}

// topicSynonyms maps a topic key to the broker keys that supply its default,
// highest precedence first (Kafka's ServerTopicConfigSynonyms).
var topicSynonyms = map[string][]BrokerSynonym{
	"segment.bytes":                   {{"log.segment.bytes", 1}},
	"segment.ms":                      {{"log.roll.ms", 1}, {"log.roll.hours", msPerHour}},
	"segment.jitter.ms":               {{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", msPerHour}},
	"segment.index.bytes":             {{"log.index.size.max.bytes", 1}},
	"flush.messages":                  {{"log.flush.interval.messages", 1}},
	"flush.ms":                        {{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}},
	"retention.bytes":                 {{"log.retention.bytes", 1}},
	"retention.ms":                    {{"log.retention.ms", 1}, {"log.retention.minutes", msPerMinute}, {"log.retention.hours", msPerHour}},
	"max.message.bytes":               {{"message.max.bytes", 1}},
	"index.interval.bytes":            {{"log.index.interval.bytes", 1}},
	"delete.retention.ms":             {{"log.cleaner.delete.retention.ms", 1}},
	"min.compaction.lag.ms":           {{"log.cleaner.min.compaction.lag.ms", 1}},
	"max.compaction.lag.ms":           {{"log.cleaner.max.compaction.lag.ms", 1}},
	"file.delete.delay.ms":            {{"log.segment.delete.delay.ms", 1}},
	"min.cleanable.dirty.ratio":       {{"log.cleaner.min.cleanable.ratio", 1}},
	"cleanup.policy":                  {{"log.cleanup.policy", 1}},
	"unclean.leader.election.enable":  {{"unclean.leader.election.enable", 1}},
	"min.insync.replicas":             {{"min.insync.replicas", 1}},
	"compression.type":                {{"compression.type", 1}},
	"compression.gzip.level":          {{"compression.gzip.level", 1}},
	"compression.lz4.level":           {{"compression.lz4.level", 1}},
	"compression.zstd.level":          {{"compression.zstd.level", 1}},
	"preallocate":                     {{"log.preallocate", 1}},
	"message.timestamp.type":          {{"log.message.timestamp.type", 1}},
	"message.downconversion.enable":   {{"log.message.downconversion.enable", 1}},
	"message.timestamp.before.max.ms": {{"log.message.timestamp.before.max.ms", 1}},
	"message.timestamp.after.max.ms":  {{"log.message.timestamp.after.max.ms", 1}},
	"local.retention.ms":              {{"log.local.retention.ms", 1}},
	"local.retention.bytes":           {{"log.local.retention.bytes", 1}},
	"max.decompressed.message.bytes":  {{"max.decompressed.message.bytes", 1}},
	"remote.copy.lag.bytes":           {{"log.remote.copy.lag.bytes", 1}},
	"remote.copy.lag.ms":              {{"log.remote.copy.lag.ms", 1}},
}

// TopicKey returns (a copy of) the definition of a topic-level key.
func TopicKey(name string) (Key, bool) {
	k, ok := topicKeys.byName[name]
	if !ok {
		return Key{}, false
	}
	return *k, true
}

// TopicKeyNames lists every topic-level key, sorted.
func TopicKeyNames() []string { return slices.Clone(topicKeys.names) }

// TopicSynonyms returns the broker keys that supply a topic key's default,
// highest precedence first; nil when the topic key has none.
func TopicSynonyms(topicKey string) []BrokerSynonym { return slices.Clone(topicSynonyms[topicKey]) }

// brokerSynonymFamily is Kafka's DynamicBrokerConfig.brokerConfigSynonyms:
// the names that set the same broker value, highest precedence first.
func brokerSynonymFamily(name string) []string {
	switch name {
	case "log.roll.ms", "log.roll.hours":
		return []string{"log.roll.ms", "log.roll.hours"}
	case "log.roll.jitter.ms", "log.roll.jitter.hours":
		return []string{"log.roll.jitter.ms", "log.roll.jitter.hours"}
	case "log.flush.interval.ms":
		return []string{"log.flush.interval.ms", "log.flush.scheduler.interval.ms"}
	case "log.retention.ms", "log.retention.minutes", "log.retention.hours":
		return []string{"log.retention.ms", "log.retention.minutes", "log.retention.hours"}
	}
	if base, ok := listenerBase(name); ok {
		return []string{name, base}
	}
	return []string{name}
}

// listenerBase returns the key inside listener.name.<listener>.<key>; for a
// SASL mechanism-scoped key (listener.name.l.<mechanism>.sasl.jaas.config)
// it returns the mechanism-free key, as Kafka does.
func listenerBase(name string) (string, bool) {
	if !listenerPrefixed(name) {
		return "", false
	}
	rest := strings.TrimPrefix(name, "listener.name.")
	_, base, _ := strings.Cut(rest, ".")
	for _, m := range []string{"sasl.jaas.config", "sasl.login.callback.handler.class", "sasl.login.class", "sasl.server.callback.handler.class", "connections.max.reauth.ms"} {
		if strings.HasSuffix(base, m) {
			return m, true
		}
	}
	return base, true
}
