package legacy

import (
	"github.com/karst-broker/karst/internal/record"
)

// AppendDownConverted appends the records of one v2 batch to dst as messages
// of magic 0 or 1, as Kafka 3.x down-converted for Fetch v0-3: a compressed
// batch becomes one wrapper message of the same codec whose offset is the
// batch's last record's, holding the inner messages with absolute (magic 0)
// or relative (magic 1) offsets; headers are dropped, and timestamps are kept
// for magic 1 (a LogAppendTime batch marks its messages so). The caller
// leaves out control batches and aborted data. Records of an uncompressed
// batch below from (the fetch offset) are left out; a compressed batch
// keeps them all, because the old consumers skip what they did not ask for
// inside a wrapper (Kafka's RecordsUtil.downConvert). zstd has no legacy
// form: ErrUnsupportedCodec, which Kafka answers
// UNSUPPORTED_COMPRESSION_TYPE. maxDecompressed bounds the batch's
// decompressed records.
func AppendDownConverted(dst []byte, b record.Batch, magic int8, from int64, maxDecompressed int) ([]byte, error) {
	codec := b.Codec()
	if codec > record.CodecLZ4 {
		return nil, ErrUnsupportedCodec
	}
	var attrs int8
	logAppendTime := b.TimestampType() == record.LogAppendTime
	if magic > 0 && logAppendTime {
		attrs |= attrLogAppendTime
	}
	timestamp := func(r *record.Record) int64 {
		if magic == 0 {
			return record.NoTimestamp
		}
		if logAppendTime {
			return b.MaxTimestamp()
		}
		return b.BaseTimestamp() + r.TimestampDelta
	}
	base := b.BaseOffset()
	if codec == record.CodecNone {
		err := b.ForEachRecord(maxDecompressed, func(r *record.Record) error {
			if off := base + int64(r.OffsetDelta); off >= from {
				dst = appendMessage(dst, off, magic, attrs, timestamp(r), r.Key, r.Value)
			}
			return nil
		})
		return dst, err
	}
	var inner []byte
	var last int64
	err := b.ForEachRecord(maxDecompressed, func(r *record.Record) error {
		off := base + int64(r.OffsetDelta)
		last = off
		if magic > 0 {
			off = int64(r.OffsetDelta)
		}
		inner = appendMessage(inner, off, magic, attrs, timestamp(r), r.Key, r.Value)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(inner) == 0 {
		return dst, nil
	}
	var value []byte
	if codec == record.CodecLZ4 {
		value = appendLZ4Frame(nil, inner, magic == 0)
	} else if value, err = record.Compress(nil, codec, inner); err != nil {
		return nil, err
	}
	wrapperTime := record.NoTimestamp
	if magic > 0 {
		wrapperTime = b.MaxTimestamp()
	}
	return appendMessage(dst, last, magic, attrs|int8(codec), wrapperTime, nil, value), nil
}
