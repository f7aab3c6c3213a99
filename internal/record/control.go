package record

import (
	"encoding/binary"
	"errors"
)

// ControlType is the type of a control record (Kafka's ControlRecordType).
type ControlType int16

// The control record types Kafka writes into partition logs.
const (
	ControlAbort  ControlType = 0
	ControlCommit ControlType = 1
)

// Marker is a transaction's end as written into each of its partitions:
// a control batch of one record whose key says commit or abort and whose
// value carries the coordinator epoch that wrote it.
type Marker struct {
	ProducerID       int64
	ProducerEpoch    int16
	CoordinatorEpoch int32
	Type             ControlType
	Timestamp        int64
}

// errNotMarker: a control batch that is not a commit or abort marker.
var errNotMarker = errors.New("not a transaction marker")

// BuildMarker appends the control batch of m to dst (base offset 0; the
// log assigns it), as Kafka's EndTransactionMarker: key = version 0 and
// type, value = version 0 and coordinator epoch.
func BuildMarker(dst []byte, m Marker) []byte {
	key := binary.BigEndian.AppendUint16(make([]byte, 0, 4), 0)
	key = binary.BigEndian.AppendUint16(key, uint16(m.Type))
	value := binary.BigEndian.AppendUint16(make([]byte, 0, 6), 0)
	value = binary.BigEndian.AppendUint32(value, uint32(m.CoordinatorEpoch))
	out, _ := Build(dst, BatchHeader{
		PartitionLeaderEpoch: NoPartitionLeaderEp,
		Attributes:           TransactionalBit | ControlBit,
		BaseTimestamp:        m.Timestamp,
		MaxTimestamp:         m.Timestamp,
		ProducerID:           m.ProducerID,
		ProducerEpoch:        m.ProducerEpoch,
		BaseSequence:         NoSequence,
	}, []Record{{Key: key, Value: value}})
	return out // uncompressed, so Build cannot fail
}

// ParseMarker reads the marker a control batch carries. Control batches
// are never compressed by Kafka; a compressed or malformed one is an error.
func ParseMarker(b Batch) (Marker, error) {
	if !b.IsControl() || b.Codec() != CodecNone || b.RecordCount() < 1 {
		return Marker{}, errNotMarker
	}
	rr := NewRecordReader(b.RecordsData(), 1)
	var r Record
	if err := rr.Next(&r); err != nil {
		return Marker{}, err
	}
	if len(r.Key) < 4 || binary.BigEndian.Uint16(r.Key) != 0 {
		return Marker{}, errNotMarker
	}
	t := ControlType(binary.BigEndian.Uint16(r.Key[2:]))
	if t != ControlAbort && t != ControlCommit {
		return Marker{}, errNotMarker
	}
	m := Marker{ProducerID: b.ProducerID(), ProducerEpoch: b.ProducerEpoch(), Type: t, Timestamp: b.MaxTimestamp(), CoordinatorEpoch: -1}
	if len(r.Value) >= 6 {
		m.CoordinatorEpoch = int32(binary.BigEndian.Uint32(r.Value[2:]))
	}
	return m, nil
}
