package record

import "encoding/binary"

// Byte offsets of the header fields of a v2 batch.
const (
	offBaseOffset      = 0
	offBatchLength     = 8
	offLeaderEpoch     = 12
	offMagic           = 16
	offCRC             = 17
	offAttributes      = 21
	offLastOffsetDelta = 23
	offBaseTimestamp   = 27
	offMaxTimestamp    = 35
	offProducerID      = 43
	offProducerEpoch   = 51
	offBaseSequence    = 53
	offRecordCount     = 57

	// HeaderSize is the fixed size of a v2 batch header (Kafka's RECORD_BATCH_OVERHEAD).
	HeaderSize = 61
	// LogOverhead is baseOffset + batchLength, the prefix not counted in batchLength.
	LogOverhead = 12
	// MagicOffset is where the magic byte sits; 17 bytes are needed to know a batch's size and magic.
	MagicOffset = offMagic
	// Magic is the only batch format Karst reads and writes.
	Magic = 2
)

// Attribute bits.
const (
	CompressionMask     = 0x07
	TimestampTypeBit    = 0x08
	TransactionalBit    = 0x10
	ControlBit          = 0x20
	DeleteHorizonBit    = 0x40
	NoProducerID        = int64(-1)
	NoProducerEpoch     = int16(-1)
	NoSequence          = int32(-1)
	NoPartitionLeaderEp = int32(-1)
	NoTimestamp         = int64(-1)
)

// Codec is the compression codec in the low three attribute bits.
type Codec int8

// Codecs as numbered by Kafka.
const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4
)

func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return "unknown"
}

// TimestampType of a batch.
type TimestampType int8

// Timestamp types as numbered by Kafka.
const (
	CreateTime    TimestampType = 0
	LogAppendTime TimestampType = 1
)

// Batch is a view of one complete v2 record batch. It must be at least
// HeaderSize bytes long; construct it with Split, a Splitter or ParseBatch,
// which check that. The accessors read the caller's bytes directly.
type Batch []byte

// ParseBatch checks that b starts with one whole v2 batch (length, magic and
// CRC) and returns the view of it and the number of bytes it occupies.
func ParseBatch(b []byte, maxSize int) (Batch, int, error) {
	s := Splitter{buf: b, MaxBatchSize: maxSize}
	batch, err := s.Next()
	if err != nil {
		return nil, 0, err
	}
	if batch == nil {
		return nil, 0, &BatchError{Err: ErrTruncated}
	}
	return batch, len(batch), nil
}

func (b Batch) BaseOffset() int64 { return int64(binary.BigEndian.Uint64(b[offBaseOffset:])) }

// BatchLength is the stored length field: bytes after the field itself.
func (b Batch) BatchLength() int32 { return int32(binary.BigEndian.Uint32(b[offBatchLength:])) }

// Size is the whole batch size in bytes (LogOverhead + BatchLength).
func (b Batch) Size() int { return len(b) }

func (b Batch) PartitionLeaderEpoch() int32 {
	return int32(binary.BigEndian.Uint32(b[offLeaderEpoch:]))
}
func (b Batch) Magic() int8       { return int8(b[offMagic]) }
func (b Batch) CRC() uint32       { return binary.BigEndian.Uint32(b[offCRC:]) }
func (b Batch) Attributes() int16 { return int16(binary.BigEndian.Uint16(b[offAttributes:])) }
func (b Batch) LastOffsetDelta() int32 {
	return int32(binary.BigEndian.Uint32(b[offLastOffsetDelta:]))
}
func (b Batch) BaseTimestamp() int64 { return int64(binary.BigEndian.Uint64(b[offBaseTimestamp:])) }
func (b Batch) MaxTimestamp() int64  { return int64(binary.BigEndian.Uint64(b[offMaxTimestamp:])) }
func (b Batch) ProducerID() int64    { return int64(binary.BigEndian.Uint64(b[offProducerID:])) }
func (b Batch) ProducerEpoch() int16 { return int16(binary.BigEndian.Uint16(b[offProducerEpoch:])) }
func (b Batch) BaseSequence() int32  { return int32(binary.BigEndian.Uint32(b[offBaseSequence:])) }
func (b Batch) RecordCount() int32   { return int32(binary.BigEndian.Uint32(b[offRecordCount:])) }

// LastOffset is baseOffset + lastOffsetDelta.
func (b Batch) LastOffset() int64 { return b.BaseOffset() + int64(b.LastOffsetDelta()) }

// NextOffset is the offset after the last record of the batch.
func (b Batch) NextOffset() int64 { return b.LastOffset() + 1 }

// LastSequence mirrors Kafka: baseSequence + lastOffsetDelta, wrapping at int32 max.
func (b Batch) LastSequence() int32 {
	base := b.BaseSequence()
	if base == NoSequence {
		return NoSequence
	}
	return IncrementSequence(base, b.LastOffsetDelta())
}

// IncrementSequence adds delta to a producer sequence, wrapping past MaxInt32 to 0 as Kafka does.
func IncrementSequence(seq, delta int32) int32 {
	if seq > 0x7fffffff-delta {
		return delta - (0x7fffffff - seq) - 1
	}
	return seq + delta
}

func (b Batch) Codec() Codec { return Codec(b.Attributes() & CompressionMask) }
func (b Batch) TimestampType() TimestampType {
	if b.Attributes()&TimestampTypeBit != 0 {
		return LogAppendTime
	}
	return CreateTime
}
func (b Batch) IsTransactional() bool  { return b.Attributes()&TransactionalBit != 0 }
func (b Batch) IsControl() bool        { return b.Attributes()&ControlBit != 0 }
func (b Batch) HasDeleteHorizon() bool { return b.Attributes()&DeleteHorizonBit != 0 }
func (b Batch) HasProducerID() bool    { return b.ProducerID() >= 0 }

// RecordsData is the bytes after the header: the records, compressed or not.
func (b Batch) RecordsData() []byte { return b[HeaderSize:] }

// SetBaseOffset rewrites baseOffset in place; it is outside the CRC.
func (b Batch) SetBaseOffset(off int64) {
	binary.BigEndian.PutUint64(b[offBaseOffset:], uint64(off))
}

// SetPartitionLeaderEpoch rewrites partitionLeaderEpoch in place; it is outside the CRC.
func (b Batch) SetPartitionLeaderEpoch(epoch int32) {
	binary.BigEndian.PutUint32(b[offLeaderEpoch:], uint32(epoch))
}

// SetLogAppendTime stamps the batch with the broker's time: maxTimestamp
// becomes ts, the timestamp-type bit is set, and the CRC is recomputed.
// Records keep their deltas; readers use maxTimestamp for every record.
func (b Batch) SetLogAppendTime(ts int64) {
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(ts))
	attrs := b.Attributes() | TimestampTypeBit
	binary.BigEndian.PutUint16(b[offAttributes:], uint16(attrs))
	b.UpdateCRC()
}

// SetMaxTimestamp rewrites maxTimestamp and the timestamp type, then the CRC.
func (b Batch) SetMaxTimestamp(tt TimestampType, ts int64) {
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(ts))
	attrs := b.Attributes() &^ TimestampTypeBit
	if tt == LogAppendTime {
		attrs |= TimestampTypeBit
	}
	binary.BigEndian.PutUint16(b[offAttributes:], uint16(attrs))
	b.UpdateCRC()
}
