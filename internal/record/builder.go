package record

import "encoding/binary"

// BatchHeader holds the header fields a writer chooses; Build fills in
// batchLength, magic, lastOffsetDelta, recordCount and the CRC.
type BatchHeader struct {
	BaseOffset           int64
	PartitionLeaderEpoch int32
	Attributes           int16 // codec bits are set from Codec
	BaseTimestamp        int64
	MaxTimestamp         int64 // 0 = computed from the records
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	Codec                Codec
}

// AppendRecord encodes one record (without its length prefix handled by the
// caller) onto dst: the length varint and the body.
func AppendRecord(dst []byte, r *Record) []byte {
	size := 1 + VarlongSize(r.TimestampDelta) + VarlongSize(int64(r.OffsetDelta)) +
		bytesSize(r.Key) + bytesSize(r.Value) + VarlongSize(int64(len(r.Headers)))
	for _, h := range r.Headers {
		size += bytesSize(h.Key) + bytesSize(h.Value)
	}
	dst = AppendVarint(dst, int32(size))
	dst = append(dst, byte(r.Attributes))
	dst = AppendVarlong(dst, r.TimestampDelta)
	dst = AppendVarint(dst, r.OffsetDelta)
	dst = appendBytes(dst, r.Key)
	dst = appendBytes(dst, r.Value)
	dst = AppendVarint(dst, int32(len(r.Headers)))
	for _, h := range r.Headers {
		dst = appendBytes(dst, h.Key)
		dst = appendBytes(dst, h.Value)
	}
	return dst
}

func bytesSize(b []byte) int {
	if b == nil {
		return 1
	}
	return VarlongSize(int64(len(b))) + len(b)
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return AppendVarint(dst, -1)
	}
	dst = AppendVarint(dst, int32(len(b)))
	return append(dst, b...)
}

// Build appends one complete v2 batch holding records to dst. OffsetDelta of
// each record is set to its index; TimestampDelta is taken as given.
func Build(dst []byte, h BatchHeader, records []Record) ([]byte, error) {
	var raw []byte
	maxTS := h.BaseTimestamp
	for i := range records {
		records[i].OffsetDelta = int32(i)
		raw = AppendRecord(raw, &records[i])
		if ts := h.BaseTimestamp + records[i].TimestampDelta; ts > maxTS {
			maxTS = ts
		}
	}
	if h.MaxTimestamp != 0 {
		maxTS = h.MaxTimestamp
	}
	payload := raw
	if h.Codec != CodecNone {
		var err error
		if payload, err = Compress(nil, h.Codec, raw); err != nil {
			return nil, err
		}
	}
	start := len(dst)
	dst = append(dst, make([]byte, HeaderSize)...)
	dst = append(dst, payload...)
	b := Batch(dst[start:])
	be := binary.BigEndian
	be.PutUint64(b[offBaseOffset:], uint64(h.BaseOffset))
	be.PutUint32(b[offBatchLength:], uint32(len(b)-LogOverhead))
	be.PutUint32(b[offLeaderEpoch:], uint32(h.PartitionLeaderEpoch))
	b[offMagic] = Magic
	attrs := h.Attributes&^CompressionMask | int16(h.Codec)
	be.PutUint16(b[offAttributes:], uint16(attrs))
	lastDelta := int32(len(records) - 1)
	if lastDelta < 0 {
		lastDelta = 0
	}
	be.PutUint32(b[offLastOffsetDelta:], uint32(lastDelta))
	be.PutUint64(b[offBaseTimestamp:], uint64(h.BaseTimestamp))
	be.PutUint64(b[offMaxTimestamp:], uint64(maxTS))
	be.PutUint64(b[offProducerID:], uint64(h.ProducerID))
	be.PutUint16(b[offProducerEpoch:], uint16(h.ProducerEpoch))
	be.PutUint32(b[offBaseSequence:], uint32(h.BaseSequence))
	be.PutUint32(b[offRecordCount:], uint32(len(records)))
	b.UpdateCRC()
	return dst, nil
}
