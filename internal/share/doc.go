// Package share owns the partition and state side of Kafka's share groups
// (KIP-932), what Kafka's broker keeps in SharePartitionManager and
// SharePartition and what its share coordinator keeps in
// __share_group_state:
//
//   - Partition is the state machine of one share-partition (group, topic,
//     partition): the share-partition start offset, the in-flight window
//     bounded by group.share.partition.max.record.locks, each in-flight
//     record's state (Available, Acquired, Acknowledged, Archived) and
//     delivery count, acquisition locks that expire after the group's
//     record lock duration (one keyed timer per acquisition, no sweep),
//     and the release of a member's records.
//   - Sessions are the share sessions of ShareFetch and ShareAcknowledge,
//     keyed by (group, member) as Kafka's ShareSessionCache keys them.
//   - Coordinator is the share coordinator: a shard per partition of
//     __share_group_state on the coordinator runtime, holding each
//     share-partition's durable state as ShareSnapshot and ShareUpdate
//     records in Kafka's format, and serving the Initialize, Read, Write,
//     Delete and ReadSummary share-group-state operations. Partitions
//     persist through it before an acknowledgement is answered.
//
// Group membership (ShareGroupHeartbeat, assignment) is the group
// coordinator's and is not here: a member's records are released by
// Manager.ReleaseMember, which the group coordinator calls when a member
// leaves or is fenced.
package share
