package group

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Record key versions of __consumer_offsets: the key's leading int16 says
// what the record is (Kafka's CoordinatorRecordType).
const (
	keyOffsetCommitV0  = 0
	keyOffsetCommit    = 1 // written by Kafka since 0.10
	keyGroupMetadata   = 2
	offsetValueVersion = 3 // leader epoch; no expire timestamp
	groupValueVersion  = 3 // static members
)

// TopicPartition names a partition by topic name.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// CommittedOffset is a group's committed position in one partition.
type CommittedOffset struct {
	Offset          int64
	LeaderEpoch     int32
	Metadata        string
	CommitTimestamp int64
}

func offsetCommitKey(group string, tp TopicPartition) []byte {
	k := kmsg.OffsetCommitKey{Version: keyOffsetCommit, Group: group, Topic: tp.Topic, Partition: tp.Partition}
	return k.AppendTo(nil)
}

func offsetCommitValue(o CommittedOffset) []byte {
	v := kmsg.OffsetCommitValue{Version: offsetValueVersion, Offset: o.Offset, LeaderEpoch: o.LeaderEpoch,
		Metadata: o.Metadata, CommitTimestamp: o.CommitTimestamp, ExpireTimestamp: -1}
	return v.AppendTo(nil)
}

func groupMetadataKey(group string) []byte {
	k := kmsg.GroupMetadataKey{Version: keyGroupMetadata, Group: group}
	return k.AppendTo(nil)
}

// groupMetadataRecord is the group's GroupMetadataValue as Kafka writes it
// when a generation starts or the group empties.
func (g *classicGroup) groupMetadataRecord() Record {
	v := kmsg.NewGroupMetadataValue()
	v.Version = groupValueVersion
	v.ProtocolType = g.protocolType
	v.Generation = g.generation
	v.Protocol = g.protocolPtr()
	if g.leader != "" {
		l := g.leader
		v.Leader = &l
	}
	v.CurrentStateTimestamp = g.stateSince.UnixMilli()
	for _, m := range g.allMembers() {
		mm := kmsg.NewGroupMetadataValueMember()
		mm.MemberID, mm.InstanceID = m.id, m.instanceID
		mm.ClientID, mm.ClientHost = m.clientID, m.clientHost
		mm.RebalanceTimeoutMillis = int32(m.rebalanceTimeout.Milliseconds())
		mm.SessionTimeoutMillis = int32(m.sessionTimeout.Milliseconds())
		mm.Subscription = m.metadataFor(g.protocol)
		mm.Assignment = m.assignment
		if mm.Subscription == nil {
			mm.Subscription = []byte{}
		}
		if mm.Assignment == nil {
			mm.Assignment = []byte{}
		}
		v.Members = append(v.Members, mm)
	}
	return Record{Key: groupMetadataKey(g.id), Value: v.AppendTo(nil)}
}

// emptyGroupMetadataRecord is a new group's GroupMetadataValue as Kafka
// writes it: generation 0, no protocol, no members.
func emptyGroupMetadataRecord(group string, stateSince time.Time) Record {
	v := kmsg.NewGroupMetadataValue()
	v.Version = groupValueVersion
	v.CurrentStateTimestamp = stateSince.UnixMilli()
	return Record{Key: groupMetadataKey(group), Value: v.AppendTo(nil)}
}

// persistGroup appends the group's metadata, replayed into its durable
// state once durable (appendRecords). A failed append is logged and
// returned, for the caller to answer the error; one that never becomes
// durable sets the group back to its previous generation in the log, as
// a restart would (revertClassic), whose members are told
// ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID and join again.
func (g *classicGroup) persistGroup() (Durable, error) {
	wait, err := g.appendRecords([]Record{g.groupMetadataRecord()})
	if err != nil {
		g.c.logger.Warn("writing group metadata", "group", g.id, "err", err)
	}
	return wait, err
}

// decoded is one record of __consumer_offsets, decoded.
type decoded struct {
	kind   int16 // keyOffsetCommit, keyGroupMetadata, or another type to skip
	group  string
	tp     TopicPartition
	offset *CommittedOffset         // nil: tombstone
	meta   *kmsg.GroupMetadataValue // nil: tombstone
}

var errBadRecord = errors.New("group: malformed __consumer_offsets record")

// decodeRecord reads a key and value of __consumer_offsets. Record types
// other than offsets and classic group metadata come back with their kind
// and nothing else, for the caller to skip.
func decodeRecord(key, value []byte) (decoded, error) {
	if len(key) < 2 {
		return decoded{}, errBadRecord
	}
	d := decoded{kind: int16(binary.BigEndian.Uint16(key))}
	switch d.kind {
	case keyOffsetCommitV0, keyOffsetCommit:
		d.kind = keyOffsetCommit
		var k kmsg.OffsetCommitKey
		if err := k.ReadFrom(key); err != nil {
			return d, errBadRecord
		}
		d.group, d.tp = k.Group, TopicPartition{Topic: k.Topic, Partition: k.Partition}
		if value == nil {
			return d, nil
		}
		var v kmsg.OffsetCommitValue
		if err := v.ReadFrom(value); err != nil || v.Version < 0 || v.Version > 4 {
			return d, errBadRecord
		}
		epoch := v.LeaderEpoch
		if v.Version < 3 {
			epoch = -1
		}
		d.offset = &CommittedOffset{Offset: v.Offset, LeaderEpoch: epoch, Metadata: v.Metadata, CommitTimestamp: v.CommitTimestamp}
	case keyGroupMetadata:
		var k kmsg.GroupMetadataKey
		if err := k.ReadFrom(key); err != nil {
			return d, errBadRecord
		}
		d.group = k.Group
		if value == nil {
			return d, nil
		}
		var v kmsg.GroupMetadataValue
		if err := v.ReadFrom(value); err != nil || v.Version < 0 || v.Version > 4 {
			return d, errBadRecord
		}
		d.meta = &v
	}
	return d, nil
}
