package txn

import (
	"encoding/binary"
	"errors"
	"slices"
)

// The records of __transaction_state, byte for byte as Kafka writes them:
//
//	key:   int16 record type (0, TransactionLogKey), then the key's
//	       fields at version 0: transactional id (int16-length string)
//	value: int16 version, then TransactionLogValue at that version.
//	       Version 0 (written for transaction version 0 and 1) is not
//	       flexible; version 1 (transaction version 2) is flexible, with
//	       PreviousProducerId (tag 0), NextProducerId (tag 1) and
//	       ClientTransactionVersion (tag 2) as tagged fields.
//
// An Empty transaction stores a null partition list; every other state a
// list grouped by topic.

// keyType is CoordinatorRecordType TRANSACTION_LOG, the key's prefix.
const keyType = 0

// The TransactionLogValue versions.
const (
	valueV0 = 0
	valueV1 = 1
)

// LogValue is TransactionLogValue: what one transactional id's record
// holds.
type LogValue struct {
	Version            int16
	ProducerID         int64
	PreviousProducerID int64 // v1 tagged, default -1
	NextProducerID     int64 // v1 tagged, default -1
	ProducerEpoch      int16
	TimeoutMs          int32
	State              State
	// Partitions is nil for a null list (Empty).
	Partitions   []TopicPartition
	LastUpdateMs int64
	StartMs      int64
	// ClientTransactionVersion is v1 tagged, default 0.
	ClientTransactionVersion int16
}

var (
	errShort      = errors.New("txn: record truncated")
	errKeyType    = errors.New("txn: not a transaction log key")
	errValueVer   = errors.New("txn: unknown transaction log value version")
	errBadState   = errors.New("txn: unknown transaction state")
	errBadLength  = errors.New("txn: bad length")
	errTrailing   = errors.New("txn: trailing bytes")
	errEmptyTxnID = errors.New("txn: empty transactional id")
)

// EncodeKey is the __transaction_state key of a transactional id.
func EncodeKey(transactionalID string) []byte {
	b := make([]byte, 0, 4+len(transactionalID))
	b = binary.BigEndian.AppendUint16(b, keyType)
	b = binary.BigEndian.AppendUint16(b, uint16(len(transactionalID)))
	return append(b, transactionalID...)
}

// DecodeKey returns the transactional id of a __transaction_state key.
func DecodeKey(b []byte) (string, error) {
	r := reader{b: b}
	if t := r.int16(); r.err == nil && t != keyType {
		return "", errKeyType
	}
	id := r.string()
	if r.err == nil && len(r.b) != 0 {
		r.err = errTrailing
	}
	if r.err == nil && id == "" {
		r.err = errEmptyTxnID
	}
	return id, r.err
}

// groupByTopic lists partitions topic by topic, sorted, as the value's
// PartitionsSchema entries.
func groupByTopic(tps []TopicPartition) []TopicPartition {
	out := slices.Clone(tps)
	slices.SortFunc(out, func(a, b TopicPartition) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition) - int(b.Partition)
	})
	return out
}

// EncodeValue is v's bytes, with its version prefix.
func EncodeValue(v LogValue) []byte {
	flexible := v.Version >= valueV1
	b := binary.BigEndian.AppendUint16(nil, uint16(v.Version))
	b = binary.BigEndian.AppendUint64(b, uint64(v.ProducerID))
	b = binary.BigEndian.AppendUint16(b, uint16(v.ProducerEpoch))
	b = binary.BigEndian.AppendUint32(b, uint32(v.TimeoutMs))
	b = append(b, byte(v.State))
	b = appendPartitions(b, v.Partitions, flexible)
	b = binary.BigEndian.AppendUint64(b, uint64(v.LastUpdateMs))
	b = binary.BigEndian.AppendUint64(b, uint64(v.StartMs))
	if !flexible {
		return b
	}
	type tagged struct {
		tag  uint64
		data []byte
	}
	var tags []tagged
	if v.PreviousProducerID != -1 {
		tags = append(tags, tagged{0, binary.BigEndian.AppendUint64(nil, uint64(v.PreviousProducerID))})
	}
	if v.NextProducerID != -1 {
		tags = append(tags, tagged{1, binary.BigEndian.AppendUint64(nil, uint64(v.NextProducerID))})
	}
	if v.ClientTransactionVersion != 0 {
		tags = append(tags, tagged{2, binary.BigEndian.AppendUint16(nil, uint16(v.ClientTransactionVersion))})
	}
	b = binary.AppendUvarint(b, uint64(len(tags)))
	for _, t := range tags {
		b = binary.AppendUvarint(b, t.tag)
		b = binary.AppendUvarint(b, uint64(len(t.data)))
		b = append(b, t.data...)
	}
	return b
}

func appendPartitions(b []byte, tps []TopicPartition, flexible bool) []byte {
	if tps == nil {
		if flexible {
			return binary.AppendUvarint(b, 0)
		}
		return binary.BigEndian.AppendUint32(b, 0xffffffff)
	}
	sorted := groupByTopic(tps)
	var topics [][]TopicPartition
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Topic == sorted[i].Topic {
			j++
		}
		topics = append(topics, sorted[i:j])
		i = j
	}
	b = appendLen(b, len(topics), flexible)
	for _, t := range topics {
		if flexible {
			b = binary.AppendUvarint(b, uint64(len(t[0].Topic))+1)
		} else {
			b = binary.BigEndian.AppendUint16(b, uint16(len(t[0].Topic)))
		}
		b = append(b, t[0].Topic...)
		b = appendLen(b, len(t), flexible)
		for _, tp := range t {
			b = binary.BigEndian.AppendUint32(b, uint32(tp.Partition))
		}
		if flexible {
			b = binary.AppendUvarint(b, 0) // no tagged fields
		}
	}
	return b
}

func appendLen(b []byte, n int, flexible bool) []byte {
	if flexible {
		return binary.AppendUvarint(b, uint64(n)+1)
	}
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

// DecodeValue reads a __transaction_state value (version 0 or 1).
func DecodeValue(b []byte) (LogValue, error) {
	r := reader{b: b}
	v := LogValue{PreviousProducerID: -1, NextProducerID: -1}
	v.Version = r.int16()
	if r.err == nil && (v.Version < valueV0 || v.Version > valueV1) {
		return v, errValueVer
	}
	flexible := v.Version >= valueV1
	v.ProducerID = r.int64()
	v.ProducerEpoch = r.int16()
	v.TimeoutMs = r.int32()
	v.State = State(r.int8())
	if r.err == nil && !v.State.valid() {
		return v, errBadState
	}
	v.Partitions = r.partitions(flexible)
	v.LastUpdateMs = r.int64()
	v.StartMs = r.int64()
	if flexible {
		r.taggedFields(func(tag uint64, data []byte) {
			d := reader{b: data}
			switch tag {
			case 0:
				v.PreviousProducerID = d.int64()
			case 1:
				v.NextProducerID = d.int64()
			case 2:
				v.ClientTransactionVersion = d.int16()
			default:
				return // unknown tags are skipped, as Kafka does
			}
			if d.err != nil {
				r.err = d.err
			}
		})
	}
	// Kafka tolerates bytes after a known version's fields (a newer
	// writer's); so does Karst.
	return v, r.err
}

// reader is a bounds-checked cursor; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) int8() int8 {
	if b := r.take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

func (r *reader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string {
	n := r.int16()
	if r.err == nil && n < 0 {
		r.err = errBadLength
	}
	return string(r.take(int(n)))
}

func (r *reader) compactString() string {
	n := r.uvarint()
	if r.err == nil && (n == 0 || n-1 > uint64(len(r.b))) {
		r.err = errBadLength
	}
	if r.err != nil {
		return ""
	}
	return string(r.take(int(n - 1)))
}

// arrayLen reads an array length; -1 is null. A length that cannot fit
// in what is left (each element takes at least min bytes) is an error,
// so a corrupt length never allocates.
func (r *reader) arrayLen(flexible bool, min int) int {
	var n int64
	if flexible {
		n = int64(r.uvarint()) - 1
	} else {
		n = int64(r.int32())
	}
	if r.err != nil {
		return 0
	}
	if n < -1 || n*int64(min) > int64(len(r.b)) {
		r.err = errBadLength
		return 0
	}
	return int(n)
}

func (r *reader) partitions(flexible bool) []TopicPartition {
	n := r.arrayLen(flexible, 2)
	if r.err != nil || n < 0 {
		return nil
	}
	out := []TopicPartition{}
	for i := 0; i < n && r.err == nil; i++ {
		var topic string
		if flexible {
			topic = r.compactString()
		} else {
			topic = r.string()
		}
		m := r.arrayLen(flexible, 4)
		if m < 0 && r.err == nil {
			r.err = errBadLength
		}
		for j := 0; j < m && r.err == nil; j++ {
			out = append(out, TopicPartition{Topic: topic, Partition: r.int32()})
		}
		if flexible {
			r.taggedFields(func(uint64, []byte) {})
		}
	}
	if r.err != nil {
		return nil
	}
	return out
}

func (r *reader) taggedFields(fn func(tag uint64, data []byte)) {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = errBadLength
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		tag := r.uvarint()
		size := r.uvarint()
		if r.err == nil && size > uint64(len(r.b)) {
			r.err = errBadLength
		}
		data := r.take(int(size))
		if r.err == nil {
			fn(tag, data)
		}
	}
}
