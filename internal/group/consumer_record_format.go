package group

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
)

// Record types (the key's leading int16) of the consumer protocol in
// __consumer_offsets, as Kafka 4.1 writes them. Keys are not flexible:
// the type, then int16-length strings. Values are version 0 and
// flexible: compact strings and arrays, and a tagged-field section after
// every struct.
const (
	keyConsumerGroupMetadata          = 3
	keyConsumerGroupPartitionMetadata = 4 // no longer written by 4.1; tombstoned on delete
	keyConsumerGroupMemberMetadata    = 5
	keyConsumerGroupTargetMetadata    = 6
	keyConsumerGroupTargetMember      = 7
	keyConsumerGroupCurrentAssignment = 8
)

// topicPartitions is Kafka's TopicPartitions struct of the assignment
// records: a topic id and its partitions.
type topicPartitions struct {
	TopicID    [16]byte
	Partitions []int32
}

// memberMetadataValue is ConsumerGroupMemberMetadataValue v0. The
// tagged ClassicMemberMetadata (members of the classic protocol inside a
// consumer group) is never written here and skipped when read.
type memberMetadataValue struct {
	InstanceID       *string
	RackID           *string
	ClientID         string
	ClientHost       string
	SubscribedTopics []string
	SubscribedRegex  *string
	RebalanceTimeout int32 // ms
	ServerAssignor   *string
}

// currentAssignmentValue is ConsumerGroupCurrentMemberAssignmentValue v0.
type currentAssignmentValue struct {
	MemberEpoch         int32
	PreviousMemberEpoch int32
	State               int8
	Assigned            []topicPartitions
	PendingRevocation   []topicPartitions
}

// consumerRecord is one decoded consumer-protocol record. Tombstone is a
// nil value; otherwise the field of its type is set.
type consumerRecord struct {
	Type      int16
	Group     string
	Member    string // types 5, 7 and 8
	Tombstone bool

	Epoch        int32 // types 3 (group epoch) and 6 (assignment epoch)
	MetadataHash int64 // type 3, tag 0
	Member5      *memberMetadataValue
	Target       []topicPartitions // type 7
	Current      *currentAssignmentValue
}

var errBadConsumerRecord = errors.New("group: malformed consumer group record")

// --- keys ---

func appendKeyString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func consumerKey(typ int16, group string, member ...string) []byte {
	b := binary.BigEndian.AppendUint16(make([]byte, 0, 8+len(group)), uint16(typ))
	b = appendKeyString(b, group)
	for _, m := range member {
		b = appendKeyString(b, m)
	}
	return b
}

func consumerGroupMetadataKey(group string) []byte {
	return consumerKey(keyConsumerGroupMetadata, group)
}

// --- values ---

// flexWriter appends the flexible encoding.
type flexWriter struct{ b []byte }

func (w *flexWriter) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *flexWriter) int8(v int8)      { w.b = append(w.b, byte(v)) }
func (w *flexWriter) int16(v int16)    { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *flexWriter) int32(v int32)    { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *flexWriter) int64(v int64)    { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }
func (w *flexWriter) noTags()          { w.uvarint(0) }

func (w *flexWriter) str(s string) {
	w.uvarint(uint64(len(s)) + 1)
	w.b = append(w.b, s...)
}

func (w *flexWriter) nullableStr(s *string) {
	if s == nil {
		w.uvarint(0)
		return
	}
	w.str(*s)
}

func (w *flexWriter) topicPartitions(tps []topicPartitions) {
	w.uvarint(uint64(len(tps)) + 1)
	for _, tp := range tps {
		w.b = append(w.b, tp.TopicID[:]...)
		w.uvarint(uint64(len(tp.Partitions)) + 1)
		for _, p := range tp.Partitions {
			w.int32(p)
		}
		w.noTags()
	}
}

func consumerGroupMetadataValue(epoch int32, metadataHash int64) []byte {
	w := flexWriter{b: make([]byte, 0, 20)}
	w.int16(0)
	w.int32(epoch)
	if metadataHash == 0 {
		w.noTags()
	} else {
		// MetadataHash is tag 0, written only when not its default 0.
		w.uvarint(1)
		w.uvarint(0)
		w.uvarint(8)
		w.int64(metadataHash)
	}
	return w.b
}

func (v *memberMetadataValue) encode() []byte {
	w := flexWriter{b: make([]byte, 0, 64)}
	w.int16(0)
	w.nullableStr(v.InstanceID)
	w.nullableStr(v.RackID)
	w.str(v.ClientID)
	w.str(v.ClientHost)
	w.uvarint(uint64(len(v.SubscribedTopics)) + 1)
	for _, t := range v.SubscribedTopics {
		w.str(t)
	}
	w.nullableStr(v.SubscribedRegex)
	w.int32(v.RebalanceTimeout)
	w.nullableStr(v.ServerAssignor)
	w.noTags()
	return w.b
}

func targetMetadataValue(assignmentEpoch int32) []byte {
	w := flexWriter{b: make([]byte, 0, 7)}
	w.int16(0)
	w.int32(assignmentEpoch)
	w.noTags()
	return w.b
}

func targetMemberValue(tps []topicPartitions) []byte {
	w := flexWriter{}
	w.int16(0)
	w.topicPartitions(tps)
	w.noTags()
	return w.b
}

func (v *currentAssignmentValue) encode() []byte {
	w := flexWriter{}
	w.int16(0)
	w.int32(v.MemberEpoch)
	w.int32(v.PreviousMemberEpoch)
	w.int8(v.State)
	w.topicPartitions(v.Assigned)
	w.topicPartitions(v.PendingRevocation)
	w.noTags()
	return w.b
}

// --- decoding ---

// flexReader reads the flexible encoding; the first error sticks and
// every later read returns zero values.
type flexReader struct {
	b   []byte
	err error
}

func (r *flexReader) fail() { r.err, r.b = errBadConsumerRecord, nil }

func (r *flexReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *flexReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *flexReader) int8() int8 {
	if b := r.take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

func (r *flexReader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *flexReader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

// length reads a compact length: n+1, 0 for null. Lengths beyond what is
// left cannot be honest (every element takes at least a byte).
func (r *flexReader) length() (n int, null bool) {
	v := r.uvarint()
	if r.err != nil {
		return 0, false
	}
	if v == 0 {
		return 0, true
	}
	if v-1 > uint64(len(r.b)) || v-1 > math.MaxInt32 {
		r.fail()
		return 0, false
	}
	return int(v - 1), false
}

func (r *flexReader) str() string {
	n, null := r.length()
	if null {
		r.fail()
		return ""
	}
	return string(r.take(n))
}

func (r *flexReader) nullableStr() *string {
	n, null := r.length()
	if null || r.err != nil {
		return nil
	}
	s := string(r.take(n))
	return &s
}

// tags skips a tagged-field section, handing each field to fn (may be
// nil).
func (r *flexReader) tags(fn func(tag uint64, data []byte)) {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		tag := r.uvarint()
		size := r.uvarint()
		if size > uint64(len(r.b)) {
			r.fail()
			return
		}
		data := r.take(int(size))
		if fn != nil && r.err == nil {
			fn(tag, data)
		}
	}
}

func (r *flexReader) topicPartitions() []topicPartitions {
	n, null := r.length()
	if null {
		r.fail()
	}
	if r.err != nil {
		return nil
	}
	out := make([]topicPartitions, 0, min(n, 64))
	for i := 0; i < n && r.err == nil; i++ {
		var tp topicPartitions
		copy(tp.TopicID[:], r.take(16))
		np, null := r.length()
		if null || np > len(r.b)/4 {
			r.fail()
			return nil
		}
		tp.Partitions = make([]int32, np)
		for j := range tp.Partitions {
			tp.Partitions[j] = r.int32()
		}
		r.tags(nil)
		out = append(out, tp)
	}
	return out
}

// version reads a value's version; only 0 is known.
func (r *flexReader) version() {
	if r.int16() != 0 {
		r.fail()
	}
}

func readKeyString(b []byte) (string, []byte, bool) {
	if len(b) < 2 {
		return "", nil, false
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	if n < 0 || n > len(b)-2 {
		return "", nil, false
	}
	return string(b[2 : 2+n]), b[2+n:], true
}

// isConsumerRecordType reports whether a key's type is one of the
// consumer protocol's records handled here.
func isConsumerRecordType(t int16) bool {
	return t >= keyConsumerGroupMetadata && t <= keyConsumerGroupCurrentAssignment
}

// decodeGroupKey reads the key of a record whose type isType accepts: its
// type, group and, for memberTypes, member. ok is false for other types.
func decodeGroupKey(key []byte, isType func(int16) bool, memberTypes ...int16) (typ int16, group, member string, ok bool, err error) {
	if len(key) < 2 {
		return 0, "", "", false, nil
	}
	typ = int16(binary.BigEndian.Uint16(key))
	if !isType(typ) {
		return typ, "", "", false, nil
	}
	group, rest, good := readKeyString(key[2:])
	if !good {
		return typ, "", "", true, errBadConsumerRecord
	}
	if slices.Contains(memberTypes, typ) {
		if member, _, good = readKeyString(rest); !good {
			return typ, group, "", true, errBadConsumerRecord
		}
	}
	return typ, group, member, true, nil
}

// decodeConsumerRecord reads a record of types 3 to 8. ok is false when
// the key is of another type; err reports a malformed record of one of
// these types.
func decodeConsumerRecord(key, value []byte) (rec consumerRecord, ok bool, err error) {
	rec.Type, rec.Group, rec.Member, ok, err = decodeGroupKey(key, isConsumerRecordType,
		keyConsumerGroupMemberMetadata, keyConsumerGroupTargetMember, keyConsumerGroupCurrentAssignment)
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
	case keyConsumerGroupMetadata:
		rec.Epoch = r.int32()
		r.tags(func(tag uint64, data []byte) {
			if tag == 0 && len(data) == 8 {
				rec.MetadataHash = int64(binary.BigEndian.Uint64(data))
			}
		})
	case keyConsumerGroupPartitionMetadata:
		// Read by Kafka before 4.1 only; its content is not needed here.
		r.take(len(r.b))
		return rec, true, r.err
	case keyConsumerGroupMemberMetadata:
		v := &memberMetadataValue{}
		v.InstanceID = r.nullableStr()
		v.RackID = r.nullableStr()
		v.ClientID = r.str()
		v.ClientHost = r.str()
		n, null := r.length()
		if null {
			r.fail()
		}
		for i := 0; i < n && r.err == nil; i++ {
			v.SubscribedTopics = append(v.SubscribedTopics, r.str())
		}
		v.SubscribedRegex = r.nullableStr()
		v.RebalanceTimeout = r.int32()
		v.ServerAssignor = r.nullableStr()
		r.tags(nil)
		rec.Member5 = v
	case keyConsumerGroupTargetMetadata:
		rec.Epoch = r.int32()
		r.tags(nil)
	case keyConsumerGroupTargetMember:
		rec.Target = r.topicPartitions()
		r.tags(nil)
	case keyConsumerGroupCurrentAssignment:
		v := &currentAssignmentValue{}
		v.MemberEpoch = r.int32()
		v.PreviousMemberEpoch = r.int32()
		v.State = r.int8()
		v.Assigned = r.topicPartitions()
		v.PendingRevocation = r.topicPartitions()
		r.tags(nil)
		rec.Current = v
	}
	if r.err != nil {
		return rec, true, r.err
	}
	return rec, true, nil
}
