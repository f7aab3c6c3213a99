package group

import (
	"encoding/binary"
	"math"
)

// Record types (the key's leading int16) of share groups in
// __consumer_offsets, as Kafka 4.4 writes them (the message JSONs of
// kafka-group-coordinator-4.4.0.jar): keys version 0, not flexible;
// values version 0, flexible.
const (
	keyShareGroupMemberMetadata         = 10
	keyShareGroupMetadata               = 11
	keyShareGroupTargetMetadata         = 12
	keyShareGroupTargetMember           = 13
	keyShareGroupCurrentAssignment      = 14
	keyShareGroupStatePartitionMetadata = 15
)

// shareMemberValue is ShareGroupMemberMetadataValue v0.
type shareMemberValue struct {
	RackID           *string
	ClientID         string
	ClientHost       string
	SubscribedTopics []string
}

// shareCurrentValue is ShareGroupCurrentMemberAssignmentValue v0.
type shareCurrentValue struct {
	MemberEpoch         int32
	PreviousMemberEpoch int32
	State               int8
	Assigned            []topicPartitions
}

// shareStateTopic is a TopicPartitionsInfo (or, without partitions, a
// TopicInfo) of ShareGroupStatePartitionMetadataValue.
type shareStateTopic struct {
	TopicID    [16]byte
	TopicName  string
	Partitions []int32
}

// shareStateValue is ShareGroupStatePartitionMetadataValue v0: the
// topic-partitions whose share state is initialized, being initialized
// or being deleted.
type shareStateValue struct {
	Initializing []shareStateTopic
	Initialized  []shareStateTopic
	Deleting     []shareStateTopic
}

// shareRecord is one decoded share group record; Tombstone is a nil
// value, otherwise the field of its type is set.
type shareRecord struct {
	Type      int16
	Group     string
	Member    string // types 10, 13 and 14
	Tombstone bool

	Epoch        int32 // types 11 (group epoch) and 12 (assignment epoch)
	MetadataHash int64 // type 11
	MemberMeta   *shareMemberValue
	Target       []topicPartitions // type 13
	Current      *shareCurrentValue
	State        *shareStateValue
}

func isShareRecordType(t int16) bool {
	return t >= keyShareGroupMemberMetadata && t <= keyShareGroupStatePartitionMetadata
}

func shareGroupMetadataValue(epoch int32, metadataHash int64) []byte {
	w := flexWriter{b: make([]byte, 0, 15)}
	w.int16(0)
	w.int32(epoch)
	w.int64(metadataHash)
	w.noTags()
	return w.b
}

func (v *shareMemberValue) encode() []byte {
	w := flexWriter{b: make([]byte, 0, 48)}
	w.int16(0)
	w.nullableStr(v.RackID)
	w.str(v.ClientID)
	w.str(v.ClientHost)
	w.uvarint(uint64(len(v.SubscribedTopics)) + 1)
	for _, t := range v.SubscribedTopics {
		w.str(t)
	}
	w.noTags()
	return w.b
}

func (v *shareCurrentValue) encode() []byte {
	w := flexWriter{}
	w.int16(0)
	w.int32(v.MemberEpoch)
	w.int32(v.PreviousMemberEpoch)
	w.int8(v.State)
	w.topicPartitions(v.Assigned)
	w.noTags()
	return w.b
}

func (v *shareStateValue) encode() []byte {
	w := flexWriter{}
	w.int16(0)
	for _, list := range [][]shareStateTopic{v.Initializing, v.Initialized} {
		w.uvarint(uint64(len(list)) + 1)
		for _, t := range list {
			w.b = append(w.b, t.TopicID[:]...)
			w.str(t.TopicName)
			w.uvarint(uint64(len(t.Partitions)) + 1)
			for _, p := range t.Partitions {
				w.int32(p)
			}
			w.noTags()
		}
	}
	w.uvarint(uint64(len(v.Deleting)) + 1)
	for _, t := range v.Deleting {
		w.b = append(w.b, t.TopicID[:]...)
		w.str(t.TopicName)
		w.noTags()
	}
	w.noTags()
	return w.b
}

func (r *flexReader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// stateTopics reads an array of TopicPartitionsInfo (withPartitions) or
// TopicInfo.
func (r *flexReader) stateTopics(withPartitions bool) []shareStateTopic {
	n, null := r.length()
	if null {
		r.fail()
	}
	var out []shareStateTopic
	for i := 0; i < n && r.err == nil; i++ {
		var t shareStateTopic
		copy(t.TopicID[:], r.take(16))
		t.TopicName = r.str()
		if withPartitions {
			np, null := r.length()
			if null || np > len(r.b)/4 {
				r.fail()
				return nil
			}
			t.Partitions = make([]int32, np)
			for j := range t.Partitions {
				t.Partitions[j] = r.int32()
			}
		}
		r.tags(nil)
		out = append(out, t)
	}
	return out
}

// decodeShareRecord reads a record of types 10 to 15. ok is false when
// the key is of another type; err reports a malformed share record.
func decodeShareRecord(key, value []byte) (rec shareRecord, ok bool, err error) {
	rec.Type, rec.Group, rec.Member, ok, err = decodeGroupKey(key, isShareRecordType,
		keyShareGroupMemberMetadata, keyShareGroupTargetMember, keyShareGroupCurrentAssignment)
	if !ok || err != nil {
		return rec, ok, err
	}
	if value == nil {
		rec.Tombstone = true
		return rec, true, nil
	}
	r := &flexReader{b: value}
	r.version()
	switch rec.Type {
	case keyShareGroupMetadata:
		rec.Epoch = r.int32()
		rec.MetadataHash = r.int64()
	case keyShareGroupMemberMetadata:
		v := &shareMemberValue{RackID: r.nullableStr(), ClientID: r.str(), ClientHost: r.str()}
		n, null := r.length()
		if null {
			r.fail()
		}
		v.SubscribedTopics = make([]string, 0, min(n, 64))
		for i := 0; i < n && r.err == nil; i++ {
			v.SubscribedTopics = append(v.SubscribedTopics, r.str())
		}
		rec.MemberMeta = v
	case keyShareGroupTargetMetadata:
		// AssignmentTimestamp (tag 0) is not kept.
		rec.Epoch = r.int32()
	case keyShareGroupTargetMember:
		rec.Target = r.topicPartitions()
	case keyShareGroupCurrentAssignment:
		v := &shareCurrentValue{MemberEpoch: r.int32(), PreviousMemberEpoch: r.int32(), State: r.int8()}
		v.Assigned = r.topicPartitions()
		rec.Current = v
	case keyShareGroupStatePartitionMetadata:
		v := &shareStateValue{}
		v.Initializing = r.stateTopics(true)
		v.Initialized = r.stateTopics(true)
		v.Deleting = r.stateTopics(false)
		rec.State = v
	}
	r.tags(nil)
	if r.err == nil && len(r.b) > 0 {
		r.fail() // bytes past the value's end
	}
	if r.err != nil {
		return rec, true, r.err
	}
	return rec, true, nil
}

// shareStatePartitions turns the initialized topics into names, dropping
// topics no longer known.
func shareStatePartitions(ts []shareStateTopic, ids TopicIDs) MemberAssignment {
	out := MemberAssignment{}
	for _, t := range ts {
		name := t.TopicName
		if ids != nil {
			if n, ok := ids.TopicName(t.TopicID); ok {
				name = n
			}
		}
		for _, p := range t.Partitions {
			if p >= 0 && p < math.MaxInt32 {
				addPartition(out, TopicPartition{name, p})
			}
		}
	}
	return out
}
