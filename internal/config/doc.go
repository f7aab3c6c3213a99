// Package config owns Karst's configuration: the Java .properties reader, the
// table of broker keys (Apache Kafka 4.x names, types, defaults, validators,
// dynamic-update modes), the table of topic-level keys with their broker
// synonyms, loading server.properties plus --override flags, dynamic broker
// overrides (AlterConfigs on a BROKER resource), and the entries that
// DescribeConfigs reports.
//
// # Layers
//
// A broker key's value comes from the first layer that sets it:
//
//	DYNAMIC_BROKER_CONFIG          AlterConfigs on BROKER "<node.id>"
//	DYNAMIC_DEFAULT_BROKER_CONFIG  AlterConfigs on BROKER ""  (cluster-wide)
//	STATIC_BROKER_CONFIG           server.properties, then --override in order
//	DEFAULT_CONFIG                 the table below (Kafka's default unless noted)
//
// A topic key's value is the topic's own override (DYNAMIC_TOPIC_CONFIG) or
// else the value of its broker synonym(s) resolved through the layers above,
// or else the topic key's own default. Synonym families resolve as Kafka does:
// log.retention.ms wins over log.retention.minutes, which wins over
// log.retention.hours; log.roll.ms over log.roll.hours; log.roll.jitter.ms over
// log.roll.jitter.hours; log.flush.interval.ms over
// log.flush.scheduler.interval.ms.
//
// LogConfigs resolves every topic's configuration through these layers once
// (a *TopicConfig, Kafka's LogConfig) and again only when a layer changes;
// the logs, the handlers and the coordinators all read it there.
//
// A *Broker is an immutable snapshot; a dynamic change produces a new one
// (Broker.WithDynamic), so readers never lock.
//
// # Where Karst differs from Kafka's defaults
//
// Karst is a single binary that is its own controller, so a few defaults are
// the ones Kafka's sample config/server.properties uses for a one-node
// cluster rather than the ConfigDef defaults: node.id=1 (Kafka: required),
// process.roles=broker,controller (Kafka: required), log.dir=./karst-data
// (DefaultDataDir; Kafka: /tmp/kafka-logs), offsets.topic.replication.factor=1,
// transaction.state.log.replication.factor=1, transaction.state.log.min.isr=1,
// share.coordinator.state.topic.replication.factor=1 and
// share.coordinator.state.topic.min.isr=1 (Kafka: 3, 3, 2, 3, 2). cluster.id
// is a Karst key (Kafka keeps it only in meta.properties). Keys Karst adds are
// marked Karst in the table (karst.metrics.listener, karst.pprof.listener).
package config
