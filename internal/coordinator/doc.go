// Package coordinator is the runtime under Karst's coordinators, modelled
// on Apache Kafka's coordinator-common CoordinatorRuntime.
//
// Each partition of a coordinator's internal topic (__transaction_state,
// and __consumer_offsets once the group coordinator moves here) has a
// shard: a state machine (Shard) that the runtime loads, serves and
// unloads. An operation reads the shard's state and returns a Result: the
// records that say what changes, and the response to give once they are
// durable. The state changes only when a record is replayed, by the same
// Replay at load and at serve, and the runtime replays a record only
// once it is durable, so every read sees committed state (Kafka reaches
// the same with its timeline; here there is nothing uncommitted to hide).
// An operation that must not race a write it started asks
// Context.Writing, as Kafka's transaction coordinator keeps a pending
// state.
//
// The writer keeps one batch per shard in flight: records of operations
// that arrive while it waits for the disk join the next batch, appended
// as soon as the one before is durable (a group commit, Kafka's
// adaptive batching). Timers are keyed (Context.Schedule, Cancel); a
// timer's operation runs on its shard like any write. Load replays a
// partition into a new shard and then calls its OnLoaded; Unload calls
// OnUnloaded and drops it, so a partition's coordinator can move to
// another broker.
//
// The runtime reaches storage only through Logs and PartitionLog; the
// broker's are TopicLogs, the partitions of an internal topic, whose
// settings (partition count and segment size at creation, the bound of a
// batch) are resolved by config.LogConfigs with the topic's overrides,
// as Kafka's coordinators read theirs (TopicSpec.Configs). MemoryLog
// is one in memory whose durability a test controls, for crash points
// between append and durability.
package coordinator
