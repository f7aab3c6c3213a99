package share

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kbin"
)

// The records of __share_group_state, in Kafka 4.4's formats: a key is
// its record type (0 ShareSnapshot, 1 ShareUpdate) then GroupId, TopicId
// and Partition; a value is a version (0) then a flexible body.
const (
	recordSnapshot int16 = 0
	recordUpdate   int16 = 1
)

// snapshotValue is ShareSnapshotValue v0.
type snapshotValue struct {
	SnapshotEpoch   int32
	StateEpoch      int32
	LeaderEpoch     int32
	StartOffset     int64
	CreateTimestamp int64
	WriteTimestamp  int64
	Batches         []StateBatch
	// DeliveryCompleteCount is tagged field 0 (KIP-1226); -1 when absent.
	DeliveryCompleteCount int32
}

// updateValue is ShareUpdateValue v0.
type updateValue struct {
	SnapshotEpoch         int32
	LeaderEpoch           int32
	StartOffset           int64
	Batches               []StateBatch
	DeliveryCompleteCount int32
}

var errMalformed = errors.New("share: malformed __share_group_state record")

func encodeKey(typ int16, k Key) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(typ))
	b = binary.BigEndian.AppendUint16(b, uint16(len(k.Group)))
	b = append(b, k.Group...)
	b = append(b, k.TopicID[:]...)
	return binary.BigEndian.AppendUint32(b, uint32(k.Partition))
}

func decodeKey(b []byte) (int16, Key, error) {
	r := kbin.Reader{Src: b}
	typ := r.Int16()
	if r.Ok() && typ != recordSnapshot && typ != recordUpdate {
		return typ, Key{}, fmt.Errorf("%w: record type %d", errMalformed, typ)
	}
	var k Key
	k.Group = r.String()
	k.TopicID = r.Uuid()
	k.Partition = r.Int32()
	if !r.Ok() || len(r.Src) != 0 {
		return typ, Key{}, errMalformed
	}
	return typ, k, nil
}

func appendBatches(b []byte, batches []StateBatch) []byte {
	b = binary.AppendUvarint(b, uint64(len(batches)+1))
	for _, s := range batches {
		b = binary.BigEndian.AppendUint64(b, uint64(s.FirstOffset))
		b = binary.BigEndian.AppendUint64(b, uint64(s.LastOffset))
		b = append(b, byte(s.DeliveryState))
		b = binary.BigEndian.AppendUint16(b, uint16(s.DeliveryCount))
		b = append(b, 0)
	}
	return b
}

func appendCompleteCount(b []byte, n int32) []byte {
	if n == -1 {
		return append(b, 0)
	}
	b = append(b, 1, 0, 4) // one tagged field: tag 0, 4 bytes
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

func (v snapshotValue) encode() []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(v.SnapshotEpoch))
	b = binary.BigEndian.AppendUint32(b, uint32(v.StateEpoch))
	b = binary.BigEndian.AppendUint32(b, uint32(v.LeaderEpoch))
	b = binary.BigEndian.AppendUint64(b, uint64(v.StartOffset))
	b = binary.BigEndian.AppendUint64(b, uint64(v.CreateTimestamp))
	b = binary.BigEndian.AppendUint64(b, uint64(v.WriteTimestamp))
	b = appendBatches(b, v.Batches)
	return appendCompleteCount(b, v.DeliveryCompleteCount)
}

func (v updateValue) encode() []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(v.SnapshotEpoch))
	b = binary.BigEndian.AppendUint32(b, uint32(v.LeaderEpoch))
	b = binary.BigEndian.AppendUint64(b, uint64(v.StartOffset))
	b = appendBatches(b, v.Batches)
	return appendCompleteCount(b, v.DeliveryCompleteCount)
}

func decodeSnapshotValue(b []byte) (snapshotValue, error) {
	r := kbin.Reader{Src: b}
	version(&r)
	v := snapshotValue{DeliveryCompleteCount: -1}
	v.SnapshotEpoch = r.Int32()
	v.StateEpoch = r.Int32()
	v.LeaderEpoch = r.Int32()
	v.StartOffset = r.Int64()
	v.CreateTimestamp = r.Int64()
	v.WriteTimestamp = r.Int64()
	v.Batches = readBatches(&r)
	v.DeliveryCompleteCount = readTags(&r)
	return v, complete(&r)
}

func decodeUpdateValue(b []byte) (updateValue, error) {
	r := kbin.Reader{Src: b}
	version(&r)
	v := updateValue{}
	v.SnapshotEpoch = r.Int32()
	v.LeaderEpoch = r.Int32()
	v.StartOffset = r.Int64()
	v.Batches = readBatches(&r)
	v.DeliveryCompleteCount = readTags(&r)
	return v, complete(&r)
}

// A kbin.Reader bounds-checks every read and, once one fails, reads
// nothing more (Ok is false).

func version(r *kbin.Reader) {
	if v := r.Int16(); r.Ok() && v != 0 {
		r.Src = nil
		r.Int8() // fails the reader: only version 0 is known
	}
}

func complete(r *kbin.Reader) error {
	if !r.Ok() || len(r.Src) != 0 {
		return errMalformed
	}
	return nil
}

// readBatches reads a compact array of StateBatch; each element is at
// least 20 bytes, which bounds the count before anything is allocated.
func readBatches(r *kbin.Reader) []StateBatch {
	n := r.CompactArrayLen()
	if !r.Ok() || n < 0 || int(n) > len(r.Src)/20 {
		r.Src = nil
		r.Int8()
		return nil
	}
	out := make([]StateBatch, 0, n)
	for range n {
		var s StateBatch
		s.FirstOffset = r.Int64()
		s.LastOffset = r.Int64()
		s.DeliveryState = RecordState(r.Int8())
		s.DeliveryCount = r.Int16()
		readTags(r)
		if !r.Ok() {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// readTags reads a tagged-field section, returning tag 0 (the
// DeliveryCompleteCount of the values) or -1; other tags are skipped.
func readTags(r *kbin.Reader) int32 {
	out := int32(-1)
	n := r.Uvarint()
	for range n {
		if !r.Ok() {
			break
		}
		tag := r.Uvarint()
		body := r.Span(int(r.Uvarint()))
		if tag == 0 && len(body) == 4 {
			out = int32(binary.BigEndian.Uint32(body))
		}
	}
	return out
}
