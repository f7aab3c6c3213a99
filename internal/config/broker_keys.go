package config

import "slices"

// DefaultDataDir is the data directory of the embedded default (log.dir),
// relative to the working directory.
const DefaultDataDir = "./karst-data"

const (
	maxInt32 = "2147483647"
	maxInt64 = "9223372036854775807"
)

var securityProtocols = []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}

var compressionTypes = []string{"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}

// brokerKeyList is every broker key Karst knows: Apache Kafka 4.x's names,
// types, defaults (except where marked karst) and update modes.
var brokerKeyList = []Key{
	// Node identity and roles.
	karst(def("node.id", TypeInt, "1", atLeast(0), ReadOnly, "The node id of this server; node.id and broker.id are synonyms (Karst default 1; Kafka requires it).")),
	def("broker.id", TypeInt, "-1", nil, ReadOnly, "Synonym of node.id kept for old configs; if both are set they must be equal."),
	karst(def("process.roles", TypeList, "broker,controller", in("broker", "controller"), ReadOnly, "The roles of this node: broker, controller or both (Karst is always its own controller).")),
	karst(def("cluster.id", TypeString, "", nil, ReadOnly, "Karst: the cluster id; empty means the one in meta.properties, or a new random id when the log dirs are formatted.")),
	def("controller.listener.names", TypeString, "", nil, ReadOnly, "Comma-separated names of the listeners used by the controller."),
	def("controller.quorum.voters", TypeList, "", nil, ReadOnly, "Static controller quorum as id@host:port entries (accepted; Karst runs one controller)."),
	def("controller.quorum.bootstrap.servers", TypeList, "", nil, ReadOnly, "Controller quorum bootstrap host:port entries (accepted; Karst runs one controller)."),
	null("metadata.log.dir", TypeString, nil, ReadOnly, "Directory of the cluster metadata log; if unset, the first log directory."),
	def("unstable.api.versions.enable", TypeBoolean, "false", nil, ReadOnly, "Advertise API versions that are still under development."),

	// Listeners.
	def("listeners", TypeString, "PLAINTEXT://:9092", nil, PerBroker, "Comma-separated NAME://host:port listeners; an empty host binds all interfaces, port 0 picks a free port."),
	null("advertised.listeners", TypeString, nil, PerBroker, "Listeners published to clients, if different from listeners; must not use 0.0.0.0."),
	def("listener.security.protocol.map", TypeString, "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT", nil, PerBroker, "Map from listener name to security protocol, as NAME:PROTOCOL pairs."),
	null("inter.broker.listener.name", TypeString, nil, ReadOnly, "Listener used between brokers; defaults to the listener named by security.inter.broker.protocol."),
	def("security.inter.broker.protocol", TypeString, "PLAINTEXT", in(securityProtocols...), ReadOnly, "Security protocol between brokers; set this or inter.broker.listener.name, not both."),
	null("early.start.listeners", TypeString, nil, ReadOnly, "Listeners started before the authorizer has loaded."),
	null("broker.rack", TypeString, nil, ReadOnly, "Rack of this broker, used for rack-aware placement."),
	def("socket.send.buffer.bytes", TypeInt, "102400", nil, ReadOnly, "SO_SNDBUF of server sockets; -1 uses the OS default (the kernel autotunes, up to net.ipv4.tcp_wmem's maximum)."),
	karst(def("socket.receive.buffer.bytes", TypeInt, "-1", nil, ReadOnly, "SO_RCVBUF of server sockets; -1 uses the OS default. Karst: the default is -1 (the kernel autotunes), not Kafka's 102400.")),
	def("socket.request.max.bytes", TypeInt, "104857600", atLeast(1), ReadOnly, "Largest request the server accepts."),
	def("socket.listen.backlog.size", TypeInt, "50", atLeast(1), ReadOnly, "Backlog of pending connections per listener."),
	def("connections.max.idle.ms", TypeLong, "600000", nil, ReadOnly, "Idle connections are closed after this many milliseconds."),
	def("connection.failed.authentication.delay.ms", TypeInt, "100", atLeast(0), ReadOnly, "Delay before closing a connection whose authentication failed."),
	def("max.connections", TypeInt, maxInt32, atLeast(0), ClusterWide, "Maximum connections per broker."),
	def("max.connections.per.ip", TypeInt, maxInt32, atLeast(0), ClusterWide, "Maximum connections from one IP address."),
	def("max.connections.per.ip.overrides", TypeString, "", nil, ClusterWide, "Per-IP or per-host overrides of max.connections.per.ip, as host:count pairs."),
	def("max.connection.creation.rate", TypeInt, maxInt32, atLeast(0), ClusterWide, "Maximum new connections per second per broker."),
	def("quota.window.num", TypeInt, "11", atLeast(1), ReadOnly, "The number of samples to retain in memory for client quotas."),
	def("quota.window.size.seconds", TypeInt, "1", atLeast(1), ReadOnly, "The time span of each sample for client quotas."),
	def("controller.quota.window.num", TypeInt, "11", atLeast(1), ReadOnly, "The number of samples to retain in memory for controller mutation quotas."),
	def("controller.quota.window.size.seconds", TypeInt, "1", atLeast(1), ReadOnly, "The time span of each sample for controller mutations quotas."),
	null("client.quota.callback.class", TypeClass, nil, ReadOnly, "Client quota callback class: Karst loads no Java class and refuses one; quotas are resolved as by Kafka's default callback."),
	def("queued.max.requests", TypeInt, "500", atLeast(1), ReadOnly, "Requests queued before the network threads stop reading."),
	def("queued.max.request.bytes", TypeLong, "-1", nil, ReadOnly, "Bytes of queued requests before reading stops; -1 means no limit."),
	def("num.network.threads", TypeInt, "3", atLeast(1), ClusterWide, "Threads receiving requests and sending responses (Karst sizes its own pool)."),
	def("num.io.threads", TypeInt, "8", atLeast(1), ClusterWide, "Threads processing requests (Karst sizes its own pool)."),
	def("background.threads", TypeInt, "10", atLeast(1), ClusterWide, "Threads for background tasks."),
	def("request.timeout.ms", TypeInt, "30000", nil, ReadOnly, "How long the server waits for a response from another node."),
	def("fetch.max.bytes", TypeInt, "57671680", atLeast(1024), ReadOnly, "Most bytes returned for one fetch request."),
	def("max.incremental.fetch.session.cache.slots", TypeInt, "1000", atLeast(0), ReadOnly, "Incremental fetch sessions kept."),
	def("max.request.partition.size.limit", TypeInt, "2000", atLeast(1), ReadOnly, "Most partitions in one request."),
	def("delete.topic.enable", TypeBoolean, "true", nil, ReadOnly, "Allow deleting topics."),
	def("auto.create.topics.enable", TypeBoolean, "true", nil, ReadOnly, "Create a topic when a client asks for metadata of one that does not exist."),
	def("auto.leader.rebalance.enable", TypeBoolean, "true", nil, ReadOnly, "Move leadership back to preferred replicas in the background."),
	null("create.topic.policy.class.name", TypeClass, nil, ReadOnly, "Create-topic policy class (accepted, not loaded by Karst)."),
	null("alter.config.policy.class.name", TypeClass, nil, ReadOnly, "Alter-configs policy class (accepted, not loaded by Karst)."),

	// Topic defaults and replication.
	def("num.partitions", TypeInt, "1", atLeast(1), ReadOnly, "Default number of partitions of a new topic."),
	def("default.replication.factor", TypeInt, "1", nil, ReadOnly, "Default replication factor of a new topic."),
	def("min.insync.replicas", TypeInt, "1", atLeast(1), ClusterWide, "With acks=all, the fewest in-sync replicas that must acknowledge a write."),
	def("unclean.leader.election.enable", TypeBoolean, "false", nil, ClusterWide, "Allow an out-of-sync replica to become leader, losing data."),
	def("replica.lag.time.max.ms", TypeLong, "30000", nil, ReadOnly, "A follower that has not caught up for this long leaves the ISR."),
	def("replica.fetch.max.bytes", TypeInt, "1048576", atLeast(0), ReadOnly, "Bytes a follower fetches per partition."),
	def("replica.fetch.wait.max.ms", TypeInt, "500", nil, ReadOnly, "Longest wait of a follower fetch."),
	def("num.replica.fetchers", TypeInt, "1", nil, ClusterWide, "Fetcher threads per source broker."),
	def("message.max.bytes", TypeInt, "1048588", atLeast(0), ClusterWide, "Largest record batch the broker accepts (topic synonym max.message.bytes)."),
	def("max.decompressed.message.bytes", TypeInt, "2147483639", between(1, 2147483639), ClusterWide, "Largest decompressed size of one record (Kafka 4.4; accepted, not enforced by Karst)."),
	def("compression.type", TypeString, "producer", in(compressionTypes...), ClusterWide, "Final compression of topic data; producer keeps what the producer used."),
	def("compression.gzip.level", TypeInt, "-1", gzipLevel, ClusterWide, "Level used when compression.type is gzip."),
	def("compression.lz4.level", TypeInt, "9", between(1, 17), ClusterWide, "Level used when compression.type is lz4."),
	def("compression.zstd.level", TypeInt, "3", between(-131072, 22), ClusterWide, "Level used when compression.type is zstd."),

	// Log.
	karst(def("log.dir", TypeList, DefaultDataDir, listDistinct(false), ReadOnly, "Log directory, used when log.dirs is unset (Karst default ./karst-data).")),
	null("log.dirs", TypeList, listDistinct(false), ReadOnly, "Comma-separated log directories; if unset, log.dir is used."),
	def("log.segment.bytes", TypeInt, "1073741824", atLeast(1048576), ClusterWide, "Largest size of one log segment file."),
	null("log.roll.ms", TypeLong, nil, ClusterWide, "Longest time before a new segment is rolled, in ms; if unset, log.roll.hours."),
	def("log.roll.hours", TypeInt, "168", atLeast(1), ReadOnly, "Longest time before a new segment is rolled, in hours; second to log.roll.ms."),
	null("log.roll.jitter.ms", TypeLong, nil, ClusterWide, "Largest jitter subtracted from the roll time, in ms; if unset, log.roll.jitter.hours."),
	def("log.roll.jitter.hours", TypeInt, "0", atLeast(0), ReadOnly, "Largest jitter subtracted from the roll time, in hours; second to log.roll.jitter.ms."),
	null("log.retention.ms", TypeLong, nil, ClusterWide, "How long to keep a segment, in ms; -1 keeps forever; if unset, log.retention.minutes."),
	null("log.retention.minutes", TypeInt, nil, ReadOnly, "How long to keep a segment, in minutes; second to log.retention.ms; if unset, log.retention.hours."),
	def("log.retention.hours", TypeInt, "168", nil, ReadOnly, "How long to keep a segment, in hours; third after log.retention.ms and log.retention.minutes."),
	def("log.retention.bytes", TypeLong, "-1", nil, ClusterWide, "Largest size of a partition before old segments are deleted; -1 means no limit."),
	def("log.retention.check.interval.ms", TypeLong, "300000", atLeast(1), ReadOnly, "How often segments are checked for deletion."),
	def("log.cleanup.policy", TypeList, "delete", in("compact", "delete"), ClusterWide, "Default cleanup policy: delete, compact or both."),
	def("log.index.size.max.bytes", TypeInt, "10485760", atLeast(4), ClusterWide, "Largest size of an offset index file."),
	def("log.index.interval.bytes", TypeInt, "4096", atLeast(0), ClusterWide, "Bytes between offset index entries."),
	def("log.flush.interval.messages", TypeLong, maxInt64, atLeast(1), ClusterWide, "Messages appended to a partition before it is flushed."),
	null("log.flush.interval.ms", TypeLong, nil, ClusterWide, "Longest time data stays unflushed, in ms; if unset, log.flush.scheduler.interval.ms."),
	def("log.flush.scheduler.interval.ms", TypeLong, maxInt64, nil, ReadOnly, "How often the flusher checks whether a log needs flushing."),
	def("log.flush.offset.checkpoint.interval.ms", TypeInt, "60000", atLeast(0), ReadOnly, "How often the recovery point checkpoint is written."),
	def("log.flush.start.offset.checkpoint.interval.ms", TypeInt, "60000", atLeast(0), ReadOnly, "How often the log start offset checkpoint is written."),
	def("log.segment.delete.delay.ms", TypeLong, "60000", atLeast(0), ClusterWide, "Delay before a deleted segment's files are removed."),
	def("log.preallocate", TypeBoolean, "false", nil, ClusterWide, "Preallocate segment files."),
	// Kafka 3.x's broker default of message.downconversion.enable; not
	// described unless set, as Kafka 4.4 has no such key.
	internal(karst(def("log.message.downconversion.enable", TypeBoolean, "true", nil, ClusterWide, "Whether Fetch v0-3 may down-convert records to message formats v0 and v1, for topics without message.downconversion.enable of their own (Kafka 3.x; removed in Kafka 4, kept by Karst)."))),
	def("log.message.timestamp.type", TypeString, "CreateTime", in("CreateTime", "LogAppendTime"), ClusterWide, "Whether record timestamps are the producer's (CreateTime) or the broker's (LogAppendTime)."),
	def("log.message.timestamp.before.max.ms", TypeLong, maxInt64, atLeast(0), ClusterWide, "How far a CreateTime timestamp may lie before the broker's clock."),
	def("log.message.timestamp.after.max.ms", TypeLong, "3600000", atLeast(0), ClusterWide, "How far a CreateTime timestamp may lie after the broker's clock."),
	def("log.local.retention.ms", TypeLong, "-2", atLeast(-2), ClusterWide, "Local retention of tiered topics in ms; -2 means retention.ms."),
	def("log.local.retention.bytes", TypeLong, "-2", atLeast(-2), ClusterWide, "Local retention of tiered topics in bytes; -2 means retention.bytes."),
	def("log.remote.copy.lag.bytes", TypeLong, "-1", atLeast(-1), ClusterWide, "Bytes of newer local data after which a segment may be copied to remote storage; -1 derives it from local retention (tiered storage; not used by Karst)."),
	def("log.remote.copy.lag.ms", TypeLong, "0", atLeast(-1), ClusterWide, "Time since a segment's last record after which it may be copied to remote storage; -1 derives it from local retention (tiered storage; not used by Karst)."),
	def("num.recovery.threads.per.data.dir", TypeInt, "2", atLeast(1), ClusterWide, "Threads per log dir for recovery at start and flushing at shutdown."),
	def("log.dir.failure.timeout.ms", TypeLong, "30000", atLeast(1), ReadOnly, "How long a failed log dir may go unreported before the broker stops."),
	internal(def("log.initial.task.delay.ms", TypeLong, "30000", atLeast(0), ReadOnly, "Delay before the log manager's first background tasks (testing).")),

	// Log cleaner.
	def("log.cleaner.enable", TypeBoolean, "true", nil, ReadOnly, "Run the log cleaner (needed for compacted topics)."),
	def("log.cleaner.threads", TypeInt, "1", atLeast(0), ClusterWide, "Log cleaner threads."),
	def("log.cleaner.dedupe.buffer.size", TypeLong, "134217728", nil, ClusterWide, "Memory for the cleaner's key deduplication, over all threads."),
	def("log.cleaner.io.buffer.size", TypeInt, "524288", atLeast(0), ClusterWide, "I/O buffer memory of the cleaner, over all threads."),
	def("log.cleaner.io.buffer.load.factor", TypeDouble, "0.9", nil, ClusterWide, "Load factor of the cleaner's dedupe buffer."),
	def("log.cleaner.io.max.bytes.per.second", TypeDouble, "1.7976931348623157E308", nil, ClusterWide, "Cleaner I/O throttle."),
	def("log.cleaner.backoff.ms", TypeLong, "15000", atLeast(0), ClusterWide, "Sleep of the cleaner when there is nothing to clean."),
	def("log.cleaner.min.cleanable.ratio", TypeDouble, "0.5", between(0, 1), ClusterWide, "Smallest dirty-to-total ratio at which a log is cleaned."),
	def("log.cleaner.delete.retention.ms", TypeLong, "86400000", atLeast(0), ClusterWide, "How long tombstones are kept in compacted topics."),
	def("log.cleaner.min.compaction.lag.ms", TypeLong, "0", atLeast(0), ClusterWide, "Shortest time a record stays uncompacted."),
	def("log.cleaner.max.compaction.lag.ms", TypeLong, maxInt64, atLeast(1), ClusterWide, "Longest time a record may stay uncompacted."),

	// Group coordinator.
	def("group.coordinator.rebalance.protocols", TypeList, "classic,consumer", in("classic", "consumer", "share", "streams"), ReadOnly, "Enabled rebalance protocols."),
	def("group.coordinator.threads", TypeInt, "4", atLeast(1), ReadOnly, "Group coordinator threads."),
	def("group.coordinator.append.linger.ms", TypeInt, "5", atLeast(0), ReadOnly, "How long coordinator writes wait to batch before being flushed."),
	def("group.min.session.timeout.ms", TypeInt, "6000", nil, ReadOnly, "Shortest session timeout a classic group member may ask for."),
	def("group.max.session.timeout.ms", TypeInt, "1800000", nil, ReadOnly, "Longest session timeout a classic group member may ask for."),
	def("group.initial.rebalance.delay.ms", TypeInt, "3000", nil, ReadOnly, "How long a new classic group waits for more members before the first rebalance."),
	def("group.max.size", TypeInt, maxInt32, atLeast(1), ReadOnly, "Most members of a classic group."),
	def("group.consumer.session.timeout.ms", TypeInt, "45000", atLeast(1), ReadOnly, "Session timeout of consumer-protocol groups."),
	def("group.consumer.min.session.timeout.ms", TypeInt, "45000", atLeast(1), ReadOnly, "Shortest session timeout of consumer-protocol groups."),
	def("group.consumer.max.session.timeout.ms", TypeInt, "60000", atLeast(1), ReadOnly, "Longest session timeout of consumer-protocol groups."),
	def("group.consumer.heartbeat.interval.ms", TypeInt, "5000", atLeast(1), ReadOnly, "Heartbeat interval given to consumer-protocol members."),
	def("group.consumer.min.heartbeat.interval.ms", TypeInt, "5000", atLeast(1), ReadOnly, "Shortest heartbeat interval of consumer-protocol groups."),
	def("group.consumer.max.heartbeat.interval.ms", TypeInt, "15000", atLeast(1), ReadOnly, "Longest heartbeat interval of consumer-protocol groups."),
	def("group.consumer.max.size", TypeInt, maxInt32, atLeast(1), ReadOnly, "Most members of a consumer-protocol group."),
	def("group.consumer.assignors", TypeList, "uniform,range", nil, ReadOnly, "Server-side assignors; the first is the default."),
	def("group.consumer.migration.policy", TypeString, "bidirectional", inFold("disabled", "downgrade", "upgrade", "bidirectional"), ReadOnly, "Which conversions between classic and consumer groups are allowed."),
	def("group.consumer.regex.refresh.interval.ms", TypeInt, "600000", atLeast(1), ReadOnly, "How often topics matching subscribed regexes are refreshed."),
	def("group.share.session.timeout.ms", TypeInt, "45000", atLeast(1), ReadOnly, "Session timeout of share groups."),
	def("group.share.min.session.timeout.ms", TypeInt, "45000", atLeast(1), ReadOnly, "Shortest session timeout of share groups."),
	def("group.share.max.session.timeout.ms", TypeInt, "60000", atLeast(1), ReadOnly, "Longest session timeout of share groups."),
	def("group.share.heartbeat.interval.ms", TypeInt, "5000", atLeast(1), ReadOnly, "Heartbeat interval given to share group members."),
	def("group.share.min.heartbeat.interval.ms", TypeInt, "5000", atLeast(1), ReadOnly, "Shortest heartbeat interval of share groups."),
	def("group.share.max.heartbeat.interval.ms", TypeInt, "15000", atLeast(1), ReadOnly, "Longest heartbeat interval of share groups."),
	def("group.share.assignors", TypeList, ShareAssignorSimple, shareAssignors, ReadOnly, "The share groups' server-side assignor, one entry: simple (Kafka's SimpleAssignor, also by its class name); Karst loads no other class."),
	def("group.share.max.size", TypeInt, "200", between(10, 1000), ReadOnly, "Most members of a share group."),
	def("group.share.max.share.sessions", TypeInt, "2000", atLeast(1), ReadOnly, "Most share sessions the broker keeps."),
	def("offsets.topic.num.partitions", TypeInt, "50", atLeast(1), ReadOnly, "Partitions of __consumer_offsets (do not change after deployment)."),
	karst(def("offsets.topic.replication.factor", TypeShort, "1", atLeast(1), ReadOnly, "Replication factor of __consumer_offsets (Karst default 1; Kafka 3).")),
	def("offsets.topic.segment.bytes", TypeInt, "104857600", atLeast(1), ReadOnly, "Segment size of __consumer_offsets."),
	def("offsets.topic.compression.codec", TypeInt, "0", nil, ReadOnly, "Compression codec id of __consumer_offsets writes."),
	def("offsets.load.buffer.size", TypeInt, "5242880", atLeast(1), ReadOnly, "Read batch size when loading __consumer_offsets."),
	def("offsets.retention.minutes", TypeInt, "10080", atLeast(1), ReadOnly, "How long committed offsets of an empty group are kept."),
	def("offsets.retention.check.interval.ms", TypeLong, "600000", atLeast(1), ReadOnly, "How often stale offsets are looked for."),
	def("offsets.commit.timeout.ms", TypeInt, "5000", atLeast(1), ReadOnly, "How long a coordinator write may wait for replication."),
	def("offset.metadata.max.bytes", TypeInt, "4096", nil, ReadOnly, "Largest metadata string of an offset commit."),

	// Share coordinator.
	karst(def("share.coordinator.state.topic.replication.factor", TypeShort, "1", atLeast(1), ReadOnly, "Replication factor of __share_group_state (Karst default 1; Kafka 3).")),
	karst(def("share.coordinator.state.topic.min.isr", TypeShort, "1", atLeast(1), ReadOnly, "min.insync.replicas of __share_group_state (Karst default 1; Kafka 2).")),
	def("share.coordinator.state.topic.num.partitions", TypeInt, "50", atLeast(1), ReadOnly, "Partitions of __share_group_state."),
	def("share.coordinator.state.topic.segment.bytes", TypeInt, "104857600", atLeast(1), ReadOnly, "Segment size of __share_group_state."),
	def("share.coordinator.snapshot.update.records.per.snapshot", TypeInt, "500", between(0, 500), ReadOnly, "ShareUpdate records of a share-partition between two ShareSnapshot records."),
	internal(def("share.coordinator.state.topic.prune.interval.ms", TypeInt, "300000", atLeast(1), ReadOnly, "How often records of __share_group_state below every share-partition's latest snapshot are deleted (internal in Kafka).")),
	internal(def("share.coordinator.cold.partition.snapshot.interval.ms", TypeInt, "300000", atLeast(1), ReadOnly, "How old a share-partition's latest snapshot may get before the share coordinator writes it again, so pruning passes it (internal in Kafka).")),
	def("group.share.record.lock.duration.ms", TypeInt, "30000", atLeast(1000), ReadOnly, "How long a share consumer holds a record before it is released."),
	def("group.share.delivery.count.limit", TypeInt, "5", between(2, 10), ReadOnly, "Deliveries of a share-group record before it is archived."),

	// Transactions and producer state.
	def("transaction.state.log.num.partitions", TypeInt, "50", atLeast(1), ReadOnly, "Partitions of __transaction_state (do not change after deployment)."),
	karst(def("transaction.state.log.replication.factor", TypeShort, "1", atLeast(1), ReadOnly, "Replication factor of __transaction_state (Karst default 1; Kafka 3).")),
	karst(def("transaction.state.log.min.isr", TypeInt, "1", atLeast(1), ReadOnly, "min.insync.replicas of __transaction_state (Karst default 1; Kafka 2).")),
	def("transaction.state.log.segment.bytes", TypeInt, "104857600", atLeast(1), ReadOnly, "Segment size of __transaction_state."),
	def("transaction.state.log.load.buffer.size", TypeInt, "5242880", atLeast(1), ReadOnly, "Read batch size when loading __transaction_state."),
	def("transaction.max.timeout.ms", TypeInt, "900000", atLeast(1), ReadOnly, "Largest transaction timeout a producer may ask for."),
	def("transactional.id.expiration.ms", TypeInt, "604800000", atLeast(1), ReadOnly, "How long an idle transactional id is kept."),
	def("transaction.abort.timed.out.transaction.cleanup.interval.ms", TypeInt, "10000", atLeast(1), ReadOnly, "How often timed-out transactions are rolled back."),
	def("transaction.remove.expired.transaction.cleanup.interval.ms", TypeInt, "3600000", atLeast(1), ReadOnly, "How often expired transactional ids are removed."),
	def("transaction.partition.verification.enable", TypeBoolean, "true", nil, ClusterWide, "Verify that a partition was added to a transaction before writing to it."),
	def("producer.id.expiration.ms", TypeInt, "86400000", atLeast(1), ClusterWide, "How long producer state of an idle producer id is kept."),
	internal(def("producer.id.expiration.check.interval.ms", TypeInt, "600000", atLeast(1), ReadOnly, "How often expired producer ids are removed.")),

	// Security: accepted now, served later.
	def("sasl.enabled.mechanisms", TypeList, "GSSAPI", nil, PerBroker, "SASL mechanisms enabled on the server."),
	def("sasl.mechanism.inter.broker.protocol", TypeString, "GSSAPI", nil, PerBroker, "SASL mechanism between brokers."),
	def("sasl.mechanism.controller.protocol", TypeString, "GSSAPI", nil, ReadOnly, "SASL mechanism towards controllers."),
	null("sasl.jaas.config", TypePassword, nil, PerBroker, "JAAS login configuration."),
	null("sasl.kerberos.service.name", TypeString, nil, PerBroker, "Kerberos service name."),
	def("sasl.kerberos.principal.to.local.rules", TypeList, "DEFAULT", nil, PerBroker, "Rules mapping Kerberos principals to short names, first match wins."),
	def("sasl.kerberos.kinit.cmd", TypeString, "/usr/bin/kinit", nil, PerBroker, "Kerberos kinit command path (unused: Karst reads its keytab itself)."),
	def("sasl.kerberos.min.time.before.relogin", TypeLong, "60000", nil, PerBroker, "Login thread sleep between refresh attempts (unused: a keytab needs no relogin)."),
	def("sasl.kerberos.ticket.renew.jitter", TypeDouble, "0.05", nil, PerBroker, "Random jitter added to the renewal time (unused)."),
	def("sasl.kerberos.ticket.renew.window.factor", TypeDouble, "0.8", nil, PerBroker, "Fraction of a ticket's lifetime before renewal (unused)."),
	null("sasl.server.callback.handler.class", TypeClass, nil, ReadOnly, "SASL server callback handler class."),
	null("sasl.login.callback.handler.class", TypeClass, nil, ReadOnly, "SASL login callback handler class."),
	null("sasl.login.class", TypeClass, nil, ReadOnly, "Login class."),
	def("sasl.server.max.receive.size", TypeInt, "524288", nil, ReadOnly, "Largest SASL message before authentication."),
	def("connections.max.reauth.ms", TypeLong, "0", nil, ReadOnly, "Longest session before re-authentication; 0 disables."),
	def("principal.builder.class", TypeClass, "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder", nil, PerBroker, "Principal builder class."),
	def("ssl.principal.mapping.rules", TypeString, "DEFAULT", nil, ReadOnly, "Rules mapping certificate names to principals."),
	def("ssl.protocol", TypeString, "TLSv1.3", nil, PerBroker, "TLS protocol used to build the context."),
	null("ssl.provider", TypeString, nil, PerBroker, "Security provider for TLS."),
	null("ssl.cipher.suites", TypeList, nil, PerBroker, "Enabled cipher suites; empty means all supported."),
	def("ssl.enabled.protocols", TypeList, "TLSv1.2,TLSv1.3", nil, PerBroker, "Enabled TLS versions."),
	def("ssl.keystore.type", TypeString, "JKS", nil, PerBroker, "Key store format: JKS, PKCS12 or PEM."),
	null("ssl.keystore.location", TypeString, nil, PerBroker, "Key store file."),
	null("ssl.keystore.password", TypePassword, nil, PerBroker, "Key store password."),
	null("ssl.key.password", TypePassword, nil, PerBroker, "Private key password."),
	null("ssl.keystore.key", TypePassword, nil, PerBroker, "PEM private key."),
	null("ssl.keystore.certificate.chain", TypePassword, nil, PerBroker, "PEM certificate chain."),
	def("ssl.truststore.type", TypeString, "JKS", nil, PerBroker, "Trust store format: JKS, PKCS12 or PEM."),
	null("ssl.truststore.location", TypeString, nil, PerBroker, "Trust store file."),
	null("ssl.truststore.password", TypePassword, nil, PerBroker, "Trust store password."),
	null("ssl.truststore.certificates", TypePassword, nil, PerBroker, "PEM trusted certificates."),
	def("ssl.keymanager.algorithm", TypeString, "SunX509", nil, PerBroker, "Key manager algorithm."),
	def("ssl.trustmanager.algorithm", TypeString, "PKIX", nil, PerBroker, "Trust manager algorithm."),
	def("ssl.endpoint.identification.algorithm", TypeString, "https", nil, PerBroker, "Server host name verification algorithm."),
	null("ssl.secure.random.implementation", TypeString, nil, PerBroker, "SecureRandom implementation."),
	def("ssl.client.auth", TypeString, "none", in("required", "requested", "none"), PerBroker, "Whether clients must present certificates."),
	null("ssl.engine.factory.class", TypeClass, nil, PerBroker, "SSL engine factory class."),
	def("authorizer.class.name", TypeString, "", nil, ReadOnly, "Authorizer class; empty disables authorization."),
	null("super.users", TypeString, nil, ReadOnly, "Semicolon-separated principals allowed everything (read by the authorizer)."),
	def("allow.everyone.if.no.acl.found", TypeBoolean, "false", nil, ReadOnly, "Allow access to resources that have no ACL (read by the authorizer)."),

	// Metrics.
	def("metric.reporters", TypeList, "", nil, ClusterWide, "Metrics reporter classes (accepted; Karst exports Prometheus)."),
	def("metrics.num.samples", TypeInt, "2", atLeast(1), ReadOnly, "Samples kept for computing metrics."),
	def("metrics.sample.window.ms", TypeLong, "30000", atLeast(1), ReadOnly, "Window of a metrics sample."),
	def("metrics.recording.level", TypeString, "INFO", in("INFO", "DEBUG", "TRACE"), ReadOnly, "Highest recording level of metrics."),
	karst(def("karst.metrics.listener", TypeString, "", hostPortOrEmpty, ReadOnly, "Karst: host:port serving Prometheus metrics at /metrics; empty disables.")),
	karst(def("karst.console.listener", TypeString, "", hostPortOrEmpty, ReadOnly, "Karst: host:port serving the web console (topics, messages, groups, broker health); empty disables.")),
	karst(def("karst.console.kafka.listener", TypeString, "", nil, ReadOnly, "Karst: name of the listener the web console reads the broker through; empty means the first PLAINTEXT listener, else the first SASL_PLAINTEXT, SASL_SSL, then SSL one. On a SASL listener every console user logs in (PLAIN, SCRAM or an OAUTHBEARER token) and the broker's ACLs apply to what the console asks for them; on SSL the console presents the listener's own key store certificate where the listener asks for one and is its principal.")),
	karst(null("karst.console.ssl.keystore.location", TypeString, nil, ReadOnly, "Karst: key store file of the web console's HTTPS certificate and key (a PEM file holding both, PKCS12 or JKS, as karst.console.ssl.keystore.type says); with it or karst.console.ssl.keystore.key set the console serves HTTPS only.")),
	karst(def("karst.console.ssl.keystore.type", TypeString, "PEM", nil, ReadOnly, "Karst: format of the web console's key store: PEM, PKCS12 or JKS, as ssl.keystore.type.")),
	karst(null("karst.console.ssl.keystore.password", TypePassword, nil, ReadOnly, "Karst: password of the web console's key store, as ssl.keystore.password.")),
	karst(null("karst.console.ssl.key.password", TypePassword, nil, ReadOnly, "Karst: password of the web console's private key, as ssl.key.password.")),
	karst(null("karst.console.ssl.keystore.key", TypePassword, nil, ReadOnly, "Karst: the web console's PEM private key inline, as ssl.keystore.key (with karst.console.ssl.keystore.certificate.chain).")),
	karst(null("karst.console.ssl.keystore.certificate.chain", TypePassword, nil, ReadOnly, "Karst: the web console's PEM certificate chain inline, as ssl.keystore.certificate.chain.")),
	karst(def("karst.console.session.timeout.ms", TypeLong, "1800000", atLeast(1000), ReadOnly, "Karst: how long a web console login lasts without a page being loaded.")),
	karst(def("karst.console.sample.interval.ms", TypeInt, "5000", atLeast(100), ReadOnly, "Karst: how often the web console samples throughput and latency for its charts, which cover the last 10 minutes.")),
	karst(def("karst.pprof.listener", TypeString, "", hostPortOrEmpty, ReadOnly, "Karst: host:port serving Go pprof at /debug/pprof/; empty disables.")),
	karst(def("karst.log.format", TypeString, "text", in("text", "json"), ReadOnly, "Karst: format of the broker's log on stderr: text (key=value pairs) or json (one object per line).")),
}

var brokerKeys = newKeyTable(slices.Concat(brokerKeyList, oauthBearerKeys, delegationTokenKeys))

// BrokerKey returns (a copy of) the definition of a broker key.
func BrokerKey(name string) (Key, bool) {
	k, ok := brokerKeys.byName[name]
	if !ok {
		return Key{}, false
	}
	return *k, true
}

// BrokerKeyNames lists every broker key, sorted.
func BrokerKeyNames() []string { return append([]string(nil), brokerKeys.names...) }
