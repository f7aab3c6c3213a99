package log

import (
	"encoding/binary"
	"io"

	"github.com/karst-broker/karst/internal/record"
)

// batchRetention is what the cleaner does with a batch whose records all
// go (Kafka's RecordFilter.BatchRetention).
type batchRetention int8

const (
	deleteEmpty batchRetention = iota // drop the batch if no record is kept
	retainEmpty                       // keep its header even with no record (producer state, last offset)
	deleteBatch                       // drop the batch whatever its records
)

// recordFilter decides, batch by batch, what a cleaning pass keeps
// (Kafka's RecordFilter as LogCleaner's Cleaner.cleanInto builds it).
type recordFilter struct {
	nowMs             int64
	deleteRetentionMs int64
	offsets           *offsetMap
	txns              *cleanedTxns
	// lastOfProducer says whether b holds what an active producer's state
	// needs: its last data batch or, with no data, its last marker.
	lastOfProducer func(b record.Batch) bool
	// roundEnd is the offset after the last offset of the cleaning round:
	// the batch ending there is kept even if empty, so the log end stays.
	roundEnd int64

	discardRecords bool // scratch: the current batch is kept only for its header
	scratch        []byte
	kept           []record.Record
	headers        []record.Header
}

// check is Kafka's checkBatchRetention: it also reports whether b is a
// marker of a transaction with nothing left (so it gets a delete horizon).
func (f *recordFilter) check(b record.Batch) (batchRetention, bool) {
	var canDiscard bool
	if b.IsControl() {
		canDiscard = f.txns.onControlBatch(b)
		f.discardRecords = canDiscard && b.HasDeleteHorizon() && b.BaseTimestamp() <= f.nowMs
	} else {
		canDiscard = f.txns.onDataBatch(b)
		f.discardRecords = canDiscard
	}
	switch {
	case b.HasProducerID() && f.lastOfProducer(b):
		return retainEmpty, canDiscard && b.IsControl()
	case b.NextOffset() == f.roundEnd:
		return retainEmpty, canDiscard && b.IsControl()
	case f.discardRecords:
		return deleteBatch, canDiscard && b.IsControl()
	}
	return deleteEmpty, canDiscard && b.IsControl()
}

// keepRecord is Kafka's Cleaner.shouldRetainRecord for v2 batches.
func (f *recordFilter) keepRecord(b record.Batch, offset int64, r *record.Record) bool {
	if f.discardRecords {
		return false
	}
	if b.IsControl() || offset > f.offsets.latestOffset {
		return true
	}
	if r.Key == nil {
		return false // Kafka counts it invalid: a compacted log needs keys
	}
	if offset < f.offsets.get(r.Key) {
		return false
	}
	return r.Value != nil || !b.HasDeleteHorizon() || f.nowMs < b.BaseTimestamp()
}

// filterBatch appends to dst what the cleaner keeps of b: b itself when
// every record stays and nothing needs its delete horizon set, a rebuilt
// batch with the records kept (offsets, timestamps, producer fields and
// the last offset unchanged), an empty header, or nothing. retained is how
// many records were kept.
func (f *recordFilter) filterBatch(dst []byte, b record.Batch, maxDecompressed int) (out []byte, retained int, err error) {
	retention, emptyTxnMarker := f.check(b)
	if retention == deleteBatch {
		return dst, 0, nil
	}
	data, err := b.Records(f.scratch, maxDecompressed)
	if err != nil {
		return dst, 0, err
	}
	if b.Codec() != record.CodecNone {
		f.scratch = data
	}
	f.kept, f.headers = f.kept[:0], f.headers[:0]
	rr := record.NewRecordReader(data, b.RecordCount())
	var r record.Record
	all, tombstones := true, false
	for {
		if err := rr.Next(&r); err == io.EOF {
			break
		} else if err != nil {
			return dst, 0, err
		}
		if !f.keepRecord(b, b.BaseOffset()+int64(r.OffsetDelta), &r) {
			all = false
			continue
		}
		tombstones = tombstones || r.Value == nil
		// Headers is reused by the reader; the bytes it points at are not.
		start := len(f.headers)
		f.headers = append(f.headers, r.Headers...)
		kept := r
		kept.Headers = f.headers[start:len(f.headers):len(f.headers)]
		f.kept = append(f.kept, kept)
	}
	if len(f.kept) == 0 {
		if retention == retainEmpty {
			return appendEmptyBatch(dst, b), 0, nil
		}
		return dst, 0, nil
	}
	setHorizon := (tombstones || emptyTxnMarker) && !b.HasDeleteHorizon()
	if all && !setHorizon {
		return append(dst, b...), len(f.kept), nil
	}
	horizon := record.NoTimestamp
	if setHorizon {
		horizon = f.nowMs + f.deleteRetentionMs
	} else if b.HasDeleteHorizon() {
		horizon = b.BaseTimestamp()
	}
	out, err = rebuildBatch(dst, b, f.kept, horizon)
	return out, len(f.kept), err
}

// rebuildBatch writes the batch of the records kept from b as Kafka's
// MemoryRecords.buildRetainedRecordsInto: base offset, last offset,
// producer fields, leader epoch, codec and timestamp type of b; a delete
// horizon (not NoTimestamp) becomes the base timestamp and sets bit 0x40.
func rebuildBatch(dst []byte, b record.Batch, kept []record.Record, horizon int64) ([]byte, error) {
	logAppend := b.TimestampType() == record.LogAppendTime
	ts := func(r *record.Record) int64 {
		if logAppend {
			return b.MaxTimestamp()
		}
		return b.BaseTimestamp() + r.TimestampDelta
	}
	base := ts(&kept[0])
	if horizon != record.NoTimestamp {
		base = horizon
	}
	maxTS := record.NoTimestamp
	var raw []byte
	for i := range kept {
		t := ts(&kept[i])
		maxTS = max(maxTS, t)
		r := kept[i]
		r.Attributes = 0
		r.TimestampDelta = t - base
		raw = record.AppendRecord(raw, &r)
	}
	if logAppend {
		maxTS = b.MaxTimestamp()
	}
	payload := raw
	if b.Codec() != record.CodecNone {
		var err error
		if payload, err = record.Compress(nil, b.Codec(), raw); err != nil {
			return dst, err
		}
	}
	attrs := b.Attributes() &^ record.DeleteHorizonBit
	if horizon != record.NoTimestamp {
		attrs |= record.DeleteHorizonBit
	}
	start := len(dst)
	dst = appendBatchHeader(dst, b, attrs, base, maxTS, int32(len(kept)))
	dst = append(dst, payload...)
	out := record.Batch(dst[start:])
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-record.LogOverhead))
	out.UpdateCRC()
	return dst, nil
}

// appendEmptyBatch writes b's header with no records (Kafka's
// DefaultRecordBatch.writeEmptyHeader): it keeps the producer's epoch and
// sequence and the batch's last offset after its records are gone.
func appendEmptyBatch(dst []byte, b record.Batch) []byte {
	attrs := b.Attributes() &^ (record.CompressionMask | record.DeleteHorizonBit)
	start := len(dst)
	dst = appendBatchHeader(dst, b, attrs, b.MaxTimestamp(), b.MaxTimestamp(), 0)
	out := record.Batch(dst[start:])
	binary.BigEndian.PutUint32(out[8:], uint32(record.HeaderSize-record.LogOverhead))
	out.UpdateCRC()
	return dst
}

// appendBatchHeader appends a v2 header copying b's offsets, leader epoch
// and producer fields; the caller sets the length and CRC.
func appendBatchHeader(dst []byte, b record.Batch, attrs int16, baseTS, maxTS int64, count int32) []byte {
	be := binary.BigEndian
	dst = be.AppendUint64(dst, uint64(b.BaseOffset()))
	dst = be.AppendUint32(dst, 0) // batch length
	dst = be.AppendUint32(dst, uint32(b.PartitionLeaderEpoch()))
	dst = append(dst, record.Magic)
	dst = be.AppendUint32(dst, 0) // CRC
	dst = be.AppendUint16(dst, uint16(attrs))
	dst = be.AppendUint32(dst, uint32(b.LastOffsetDelta()))
	dst = be.AppendUint64(dst, uint64(baseTS))
	dst = be.AppendUint64(dst, uint64(maxTS))
	dst = be.AppendUint64(dst, uint64(b.ProducerID()))
	dst = be.AppendUint16(dst, uint16(b.ProducerEpoch()))
	dst = be.AppendUint32(dst, uint32(b.BaseSequence()))
	return be.AppendUint32(dst, uint32(count))
}
