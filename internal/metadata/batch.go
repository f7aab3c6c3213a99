package metadata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/karst-broker/karst/internal/record"
)

// Kafka RecordBatch v2 (magic 2), the unit of __cluster_metadata segments
// and snapshot files. Layout:
//
//	baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 |
//	magic int8 = 2 | crc uint32 (CRC-32C of everything after it) |
//	attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 |
//	maxTimestamp int64 | producerId int64 | producerEpoch int16 |
//	baseSequence int32 | recordCount int32 | records...
//
// and each record: length varint | attributes int8 | timestampDelta varlong
// | offsetDelta varint | keyLength varint (-1 = null) | key | valueLength
// varint | value | headerCount varint.

const (
	batchHeaderSize   = 61
	batchLengthOffset = 8  // where batchLength sits
	batchCRCOffset    = 17 // where the crc sits; it covers [21:]
	batchAttrsOffset  = 21

	attrCompressionMask = 0x07
	attrTransactional   = 0x10
	attrControl         = 0x20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BatchRecord is one record of a batch; a nil Key is written as null.
type BatchRecord struct {
	Key   []byte
	Value []byte
}

// BatchHeader holds the batch fields a KRaft log cares about.
type BatchHeader struct {
	BaseOffset int64
	// LeaderEpoch is partitionLeaderEpoch; in __cluster_metadata it is the
	// raft epoch of the leader that appended the batch.
	LeaderEpoch int32
	// Timestamp is the create time in milliseconds of every record.
	Timestamp int64
	Control   bool
}

// Batch is a parsed RecordBatch.
type Batch struct {
	BatchHeader
	LastOffsetDelta int32
	Records         []BatchRecord
}

// BuildBatch encodes an uncompressed RecordBatch v2 with no producer id,
// as KRaft writes metadata batches. Record i gets offset BaseOffset+i.
func BuildBatch(h BatchHeader, records []BatchRecord) []byte {
	rs := make([]record.Record, len(records))
	for i, r := range records {
		rs[i] = record.Record{Key: r.Key, Value: r.Value}
	}
	var attrs int16
	if h.Control {
		attrs = record.ControlBit
	}
	b, err := record.Build(nil, record.BatchHeader{
		BaseOffset: h.BaseOffset, PartitionLeaderEpoch: h.LeaderEpoch, Attributes: attrs,
		BaseTimestamp: h.Timestamp, MaxTimestamp: h.Timestamp,
		ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence,
	}, rs)
	if err != nil {
		panic("metadata: building an uncompressed batch cannot fail: " + err.Error())
	}
	return b
}

// BuildMetadataBatch encodes records as one data batch of
// __cluster_metadata: null keys, values the framed records.
func BuildMetadataBatch(baseOffset int64, leaderEpoch int32, timestampMs int64, records []Record) []byte {
	rs := make([]BatchRecord, len(records))
	for i, r := range records {
		rs[i] = BatchRecord{Value: Encode(r)}
	}
	return BuildBatch(BatchHeader{BaseOffset: baseOffset, LeaderEpoch: leaderEpoch, Timestamp: timestampMs}, rs)
}

// BuildControlBatch encodes control records as one control batch.
func BuildControlBatch(baseOffset int64, leaderEpoch int32, timestampMs int64, records ...ControlRecord) []byte {
	rs := make([]BatchRecord, len(records))
	for i, c := range records {
		rs[i] = BatchRecord{Key: ControlKey(c.ControlType()), Value: EncodeControl(c)}
	}
	return BuildBatch(BatchHeader{BaseOffset: baseOffset, LeaderEpoch: leaderEpoch, Timestamp: timestampMs, Control: true}, rs)
}

// ErrBatchTruncated is returned by ParseBatch when b ends inside a batch;
// at the tail of a log that is a torn write, not corruption.
var ErrBatchTruncated = errors.New("metadata: record batch truncated")

// ParseBatch parses the first batch in b and returns it with the bytes
// after it. It checks magic, length and CRC-32C, and rejects compressed
// batches (KRaft writes metadata uncompressed by default). Key and Value
// alias b.
func ParseBatch(b []byte) (Batch, []byte, error) {
	var bt Batch
	if len(b) < batchHeaderSize {
		return bt, b, ErrBatchTruncated
	}
	length := int32(binary.BigEndian.Uint32(b[batchLengthOffset:]))
	if length < batchHeaderSize-12 {
		return bt, b, fmt.Errorf("metadata: batch length %d too small", length)
	}
	if int64(length)+12 > int64(len(b)) {
		return bt, b, ErrBatchTruncated
	}
	whole, rest := b[:12+int(length)], b[12+int(length):]
	if whole[16] != 2 {
		return bt, b, fmt.Errorf("metadata: batch magic %d, want 2", whole[16])
	}
	if crc := binary.BigEndian.Uint32(whole[batchCRCOffset:]); crc != crc32.Checksum(whole[batchAttrsOffset:], castagnoli) {
		return bt, b, errors.New("metadata: batch CRC mismatch")
	}
	attrs := binary.BigEndian.Uint16(whole[21:])
	if attrs&attrCompressionMask != 0 {
		return bt, b, fmt.Errorf("metadata: compressed batch (codec %d) not supported", attrs&attrCompressionMask)
	}
	bt.BaseOffset = int64(binary.BigEndian.Uint64(whole[0:]))
	bt.LeaderEpoch = int32(binary.BigEndian.Uint32(whole[12:]))
	bt.Control = attrs&attrControl != 0
	bt.LastOffsetDelta = int32(binary.BigEndian.Uint32(whole[23:]))
	bt.Timestamp = int64(binary.BigEndian.Uint64(whole[27:]))
	count := int32(binary.BigEndian.Uint32(whole[57:]))
	body := whole[batchHeaderSize:]
	// Each record needs at least 7 bytes; this bounds the allocation.
	if count < 0 || int64(count)*7 > int64(len(body)) {
		return bt, b, fmt.Errorf("metadata: batch claims %d records in %d bytes", count, len(body))
	}
	bt.Records = make([]BatchRecord, 0, count)
	for i := int32(0); i < count; i++ {
		rec, n, err := parseRecord(body)
		if err != nil {
			return bt, b, fmt.Errorf("metadata: record %d of batch at offset %d: %w", i, bt.BaseOffset, err)
		}
		bt.Records = append(bt.Records, rec)
		body = body[n:]
	}
	if len(body) != 0 {
		return bt, b, fmt.Errorf("metadata: %d byte(s) after the last record of batch at offset %d", len(body), bt.BaseOffset)
	}
	return bt, rest, nil
}

func parseRecord(b []byte) (BatchRecord, int, error) {
	var rec BatchRecord
	length, n := binary.Varint(b)
	if n <= 0 || length < 0 || length > int64(len(b)-n) {
		return rec, 0, errors.New("bad record length")
	}
	total := n + int(length)
	r := b[n:total]
	if len(r) < 1 {
		return rec, 0, errors.New("empty record")
	}
	r = r[1:] // attributes
	var err error
	if _, r, err = varint(r); err != nil { // timestampDelta
		return rec, 0, err
	}
	if _, r, err = varint(r); err != nil { // offsetDelta
		return rec, 0, err
	}
	if rec.Key, r, err = varBytes(r); err != nil {
		return rec, 0, err
	}
	if rec.Value, r, err = varBytes(r); err != nil {
		return rec, 0, err
	}
	headers, r, err := varint(r)
	if err != nil {
		return rec, 0, err
	}
	for h := int64(0); h < headers; h++ {
		if _, r, err = varBytes(r); err != nil {
			return rec, 0, err
		}
		if _, r, err = varBytes(r); err != nil {
			return rec, 0, err
		}
	}
	if len(r) != 0 {
		return rec, 0, errors.New("record length disagrees with its fields")
	}
	return rec, total, nil
}

func varint(b []byte) (int64, []byte, error) {
	v, n := binary.Varint(b)
	if n <= 0 {
		return 0, nil, errors.New("bad varint")
	}
	return v, b[n:], nil
}

func varBytes(b []byte) ([]byte, []byte, error) {
	l, rest, err := varint(b)
	if err != nil {
		return nil, nil, err
	}
	if l < 0 {
		return nil, rest, nil
	}
	if l > int64(len(rest)) {
		return nil, nil, errors.New("field longer than record")
	}
	return rest[:l:l], rest[l:], nil
}

// ForEachMetadataRecord walks a byte stream of batches (a segment file or a
// snapshot) and calls fn with the value of every record of every data
// batch, skipping control batches. It stops at the first error; a torn
// final batch returns ErrBatchTruncated.
func ForEachMetadataRecord(b []byte, fn func(value []byte) error) error {
	for len(b) > 0 {
		bt, rest, err := ParseBatch(b)
		if err != nil {
			return err
		}
		b = rest
		if bt.Control {
			continue
		}
		for _, r := range bt.Records {
			if err := fn(r.Value); err != nil {
				return err
			}
		}
	}
	return nil
}
