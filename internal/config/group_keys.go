package config

// Group configs (GROUP resources, type 32): Kafka 4.4's GroupConfig keys,
// their types, defaults, validators and broker synonyms, taken from
// kafka-group-coordinator-4.4.0's GroupConfig.CONFIG_DEF.

// groupKey is a group config key and the broker key whose value it
// defaults to (Kafka's ALL_GROUP_CONFIG_SYNONYMS); "" when the group
// default is the key's own.
type groupKey struct {
	Key
	BrokerSynonym string
}

var groupKeyList = []groupKey{
	groupKey{Key: Key{Name: "consumer.session.timeout.ms", Type: TypeInt, Default: "45000", HasDefault: true, Validator: atLeast(1), Internal: false, Doc: "The timeout to detect client failures when using the consumer group protocol."}, BrokerSynonym: "group.consumer.session.timeout.ms"},
	groupKey{Key: Key{Name: "consumer.heartbeat.interval.ms", Type: TypeInt, Default: "5000", HasDefault: true, Validator: atLeast(1), Internal: false, Doc: "The heartbeat interval given to the members of a consumer group."}, BrokerSynonym: "group.consumer.heartbeat.interval.ms"},
	groupKey{Key: Key{Name: "consumer.assignment.interval.ms", Type: TypeInt, Default: "1000", HasDefault: true, Validator: atLeast(0), Internal: false, Doc: "The interval between assignment updates for a consumer group."}, BrokerSynonym: "group.consumer.assignment.interval.ms"},
	groupKey{Key: Key{Name: "consumer.assignor.offload.enable", Type: TypeBoolean, Default: "true", HasDefault: true, Validator: nil, Internal: true, Doc: "Whether to offload consumer group assignment to a group coordinator background thread."}, BrokerSynonym: "group.consumer.assignor.offload.enable"},
	groupKey{Key: Key{Name: "share.session.timeout.ms", Type: TypeInt, Default: "45000", HasDefault: true, Validator: atLeast(1), Internal: false, Doc: "The timeout to detect client failures when using the share group protocol."}, BrokerSynonym: "group.share.session.timeout.ms"},
	groupKey{Key: Key{Name: "share.heartbeat.interval.ms", Type: TypeInt, Default: "5000", HasDefault: true, Validator: atLeast(1), Internal: false, Doc: "The heartbeat interval given to the members of a share group."}, BrokerSynonym: "group.share.heartbeat.interval.ms"},
	groupKey{Key: Key{Name: "share.record.lock.duration.ms", Type: TypeInt, Default: "30000", HasDefault: true, Validator: atLeast(1000), Internal: false, Doc: "The record acquisition lock duration in milliseconds for share groups."}, BrokerSynonym: "group.share.record.lock.duration.ms"},
	groupKey{Key: Key{Name: "share.delivery.count.limit", Type: TypeInt, Default: "5", HasDefault: true, Validator: atLeast(2), Internal: false, Doc: "The maximum number of delivery attempts for a record delivered to a share group."}, BrokerSynonym: "group.share.delivery.count.limit"},
	groupKey{Key: Key{Name: "share.partition.max.record.locks", Type: TypeInt, Default: "2000", HasDefault: true, Validator: atLeast(100), Internal: false, Doc: "Share-group record lock limit per share-partition."}, BrokerSynonym: "group.share.partition.max.record.locks"},
	groupKey{Key: Key{Name: "share.auto.offset.reset", Type: TypeString, Default: "latest", HasDefault: true, Validator: shareAutoOffsetReset, Internal: false, Doc: "The strategy to initialize the share-partition start offset. <ul><li>earliest: automatically reset the offset to the earliest offset</li><li>latest: automatically reset the offset to the latest offset</li><li>by_duration:&lt;duration&gt;: automatically reset the offset to a configured duration from the current timestamp. &lt;duration&gt; must be specified in ISO8601 format (PnDTnHnMn.nS). Negative duration is not allowed.</li><li>anything else: throw exception to the share consumer.</li></ul>"}, BrokerSynonym: ""},
	groupKey{Key: Key{Name: "share.isolation.level", Type: TypeString, Default: "read_uncommitted", HasDefault: true, Validator: in("read_committed", "read_uncommitted"), Internal: false, Doc: "Controls how to read records written transactionally. If set to \"read_committed\", the share group will only deliver transactional records which have been committed. If set to \"read_uncommitted\", the share group will return all messages, even transactional messages which have been aborted. Non-transactional records will be returned unconditionally in either mode."}, BrokerSynonym: ""},
	groupKey{Key: Key{Name: "share.renew.acknowledge.enable", Type: TypeBoolean, Default: "true", HasDefault: true, Validator: nil, Internal: false, Doc: "Whether the renew acknowledge type is enabled for the share group."}, BrokerSynonym: ""},
	groupKey{Key: Key{Name: "share.assignment.interval.ms", Type: TypeInt, Default: "1000", HasDefault: true, Validator: atLeast(0), Internal: false, Doc: "The interval between assignment updates for a share group."}, BrokerSynonym: "group.share.assignment.interval.ms"},
	groupKey{Key: Key{Name: "share.assignor.offload.enable", Type: TypeBoolean, Default: "true", HasDefault: true, Validator: nil, Internal: true, Doc: "Whether to offload share group assignment to a group coordinator background thread."}, BrokerSynonym: "group.share.assignor.offload.enable"},
	groupKey{Key: Key{Name: "streams.session.timeout.ms", Type: TypeInt, Default: "45000", HasDefault: true, Validator: atLeast(1), Internal: false, Doc: "The timeout to detect client failures when using the streams group protocol."}, BrokerSynonym: "group.streams.session.timeout.ms"},
	groupKey{Key: Key{Name: "streams.heartbeat.interval.ms", Type: TypeInt, Default: "5000", HasDefault: true, Validator: atLeast(1), Internal: false, Doc: "The heartbeat interval given to the members."}, BrokerSynonym: "group.streams.heartbeat.interval.ms"},
	groupKey{Key: Key{Name: "streams.num.standby.replicas", Type: TypeInt, Default: "0", HasDefault: true, Validator: atLeast(0), Internal: false, Doc: "The number of standby replicas for each task."}, BrokerSynonym: "group.streams.num.standby.replicas"},
	groupKey{Key: Key{Name: "streams.initial.rebalance.delay.ms", Type: TypeInt, Default: "3000", HasDefault: true, Validator: atLeast(0), Internal: false, Doc: "The amount of time the group coordinator will wait for more streams clients to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances."}, BrokerSynonym: "group.streams.initial.rebalance.delay.ms"},
	groupKey{Key: Key{Name: "streams.assignment.interval.ms", Type: TypeInt, Default: "1000", HasDefault: true, Validator: atLeast(0), Internal: false, Doc: "The interval between assignment updates for a streams group."}, BrokerSynonym: "group.streams.assignment.interval.ms"},
	groupKey{Key: Key{Name: "streams.assignor.offload.enable", Type: TypeBoolean, Default: "true", HasDefault: true, Validator: nil, Internal: true, Doc: "Whether to offload streams group assignment to a group coordinator background thread."}, BrokerSynonym: "group.streams.assignor.offload.enable"},
	groupKey{Key: Key{Name: "streams.task.offset.interval.ms", Type: TypeInt, Default: "60000", HasDefault: true, Validator: atLeast(1), Internal: true, Doc: "The interval in which the warmup task changelog offsets on a client are updated on the broker. The offsets are sent with the next heartbeat after this time has passed."}, BrokerSynonym: "group.streams.task.offset.interval.ms"},
	groupKey{Key: Key{Name: "streams.num.warmup.replicas", Type: TypeInt, Default: "2", HasDefault: true, Validator: atLeast(0), Internal: true, Doc: "The maximum number of warmup task replicas."}, BrokerSynonym: "group.streams.num.warmup.replicas"},
	groupKey{Key: Key{Name: "streams.rack.aware.assignment.tags", Type: TypeList, Default: "", HasDefault: true, Validator: streamsRackTags, Internal: false, Doc: "List of client tag keys used to distribute standby replicas across Kafka Streams instances. When configured, and the used broker-side assignor supports it, it will make a best-effort to distribute standby tasks over each client tag dimension."}, BrokerSynonym: "group.streams.rack.aware.assignment.tags"},
	groupKey{Key: Key{Name: "streams.acceptable.recovery.lag", Type: TypeLong, Default: "10000", HasDefault: true, Validator: atLeast(0), Internal: true, Doc: "The maximum acceptable lag (number of offsets to catch up) for a client to be considered caught-up enough to receive an active task assignment."}, BrokerSynonym: "group.streams.acceptable.recovery.lag"},
	groupKey{Key: Key{Name: "streams.assignor.name", Type: TypeString, Default: "", HasDefault: false, Validator: nil, Internal: false, Doc: "The task assignor to use for this streams group, selected by short name from the assignors registered via the broker configuration group.streams.assignors. When unset, the group defaults to the first assignor configured in the broker's group.streams.assignors setting. Changing the assignor does not trigger a rebalance for the group; the new assignor takes effect on the next rebalance."}, BrokerSynonym: "group.streams.assignors"},
	groupKey{Key: Key{Name: "errors.deadletterqueue.topic.name", Type: TypeString, Default: "", HasDefault: true, Validator: nil, Internal: false, Doc: "The name of the topic to be used as the dead-letter queue (DLQ) topic for this share group. If blank (the default), the group does not have a DLQ topic."}, BrokerSynonym: ""},
	groupKey{Key: Key{Name: "errors.deadletterqueue.copy.record.enable", Type: TypeBoolean, Default: "false", HasDefault: true, Validator: nil, Internal: false, Doc: "When writing onto the dead-letter queue topic, whether to copy the original record onto the DLQ topic, or just write a record containing the context information headers."}, BrokerSynonym: ""},
}

var groupKeys = func() *keyTable {
	keys := make([]Key, len(groupKeyList))
	for i, k := range groupKeyList {
		keys[i] = k.Key
	}
	return newKeyTable(keys)
}()

var groupSynonyms = func() map[string]string {
	out := map[string]string{}
	for _, k := range groupKeyList {
		out[k.Name] = k.BrokerSynonym
	}
	return out
}()

// GroupKey returns a group config key.
func GroupKey(name string) (Key, bool) {
	k, ok := groupKeys.byName[name]
	if !ok {
		return Key{}, false
	}
	return *k, true
}
