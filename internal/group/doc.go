// Package group is the group coordinator: it owns consumer groups of the
// classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), their
// committed offsets, and their persistence in the internal topic
// __consumer_offsets, in Apache Kafka's own record formats.
//
// Offsets committed inside a transaction (TxnOffsetCommit) are written as
// a transactional batch of the producer and stay pending, invisible to
// OffsetFetch, until the transaction coordinator's marker commits or
// aborts them (CompleteTransaction; on load, the marker in the log).
// offsets.retention.minutes expires the offsets of groups without members
// (expiry.go), as Kafka's cleanupExpiredOffsets does.
//
// The core is a deterministic state machine. Every change comes from a
// call (a request, or one of the coordinator runtime's keyed timers for
// the passage of time, shard_timers.go) and time comes from a replaceable
// Clock, whose timers a test's clock fires as it moves, so a test can
// drive thousands of rebalances with a fake clock and replay a failure
// exactly. The core does no I/O: records
// go to a Store, which the broker backs with the partition logs
// (OffsetsTopic) and tests leave nil or fake.
//
// A classic group moves through Kafka's states:
//
//	Empty -> PreparingRebalance -> CompletingRebalance -> Stable
//	            ^                         |                  |
//	            +-------------------------+------------------+
//
// and Dead once deleted. A group is written to the log (GroupMetadataValue)
// when a JoinGroup creates it (Empty, generation 0), when a generation
// gets its assignment, when a static member takes a new id and when it
// empties, and the SyncGroup and static JoinGroup answers wait until that
// record is durable, as Kafka's do; after a
// restart it comes back as written, as Kafka loads it: Stable with its
// members, their assignments and the generation, so running members
// carry on without a rebalance, their session timers started again at
// load (load_classic.go). JoinGroup and SyncGroup answers wait until the
// rebalance gets far enough; Join and Sync return a channel that receives
// the one answer, so the handler can wait without blocking its
// connection's reader.
//
// Locking: the coordinator's map of groups has its own lock; each group
// has a lock of its own, so groups never wait for one another. A group's
// records are appended to its __consumer_offsets partition while its lock
// is held, which keeps the log in the order of the state changes. A
// request whose records cannot be appended (the partition is not open)
// is answered COORDINATOR_NOT_AVAILABLE, as Kafka answers, rather than
// with state the log does not hold.
//
// Consumer groups of the KIP-848 protocol (ConsumerGroupHeartbeat) live
// in the consumer_*.go files: the server-side assignors (uniform, range),
// member epochs, a target assignment recomputed at each group epoch, and
// reconciliation that revokes before it assigns, so a partition never has
// two owners. Such a group keeps its offsets in the classic group of the
// same id, and shares its lock. It is persisted as Kafka 4.1 persists it
// (consumer_record_format.go): the group epoch (ConsumerGroupMetadata),
// each member's subscription (ConsumerGroupMemberMetadata), the target
// assignment (ConsumerGroupTargetAssignmentMember and -Metadata) and each
// member's current assignment and epoch
// (ConsumerGroupCurrentMemberAssignment), with tombstones when members
// leave or are fenced and when the group is deleted. After a restart the
// group comes back whole and its members carry on with their epochs; their
// session timers start again at load. An empty classic group becomes a
// consumer group when a consumer-protocol member joins, and an empty
// consumer group a classic one when a classic member joins, as in Kafka;
// a classic group with members is not converted (Kafka's answer with
// group.consumer.migration.policy=disabled). Share groups are not here
// yet, and records of other group types found in __consumer_offsets are
// skipped on load.
package group
