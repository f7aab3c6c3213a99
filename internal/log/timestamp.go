package log

import (
	"fmt"

	"github.com/karst-broker/karst/internal/record"
)

// TimestampOffset is a ListOffsets answer.
type TimestampOffset struct {
	Timestamp int64
	Offset    int64
}

// OffsetForTimestamp answers ListOffsets for a timestamp >= 0: the first
// record at or after the log start offset whose timestamp is >= ts. found is
// false when every record is older (Kafka then answers offset -1).
// Compressed batches are decompressed (bounded) to find the exact record.
func (l *Log) OffsetForTimestamp(ts int64) (TimestampOffset, bool, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return TimestampOffset{}, false, ErrClosed
	}
	for _, s := range l.segments {
		if s.size.Load() > 0 && s.maxTimestampSoFar >= ts {
			if res, ok, err := l.searchSegment(s, ts); ok || err != nil {
				return res, ok, err
			}
		}
	}
	return TimestampOffset{}, false, nil
}

// MaxTimestamp answers ListOffsets MAX_TIMESTAMP (-3): the newest timestamp
// in the log and the first record carrying it.
func (l *Log) MaxTimestamp() (TimestampOffset, bool, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return TimestampOffset{}, false, ErrClosed
	}
	var best *segment
	for _, s := range l.segments {
		if s.size.Load() > 0 && s.maxTimestampSoFar >= 0 && (best == nil || s.maxTimestampSoFar > best.maxTimestampSoFar) {
			best = s
		}
	}
	if best == nil {
		return TimestampOffset{}, false, nil
	}
	return l.searchSegment(best, best.maxTimestampSoFar)
}

// searchSegment scans s from the time index's hint for the first record
// with timestamp >= ts and offset >= the log start offset.
func (l *Log) searchSegment(s *segment, ts int64) (TimestampOffset, bool, error) {
	lso := l.logStartOffset.Load()
	_, hint := s.timeIdx.lookup(ts)
	_, pos := s.offsetIdx.lookup(max(hint, lso))
	limit := s.size.Load()
	hdr := headerPool.Get().(*[record.HeaderSize]byte)
	defer headerPool.Put(hdr)
	var buf []byte
	for pos < limit {
		h, err := s.readHeader(pos, limit, hdr)
		if err != nil {
			break
		}
		size := int64(h.BatchLength()) + record.LogOverhead
		if size < record.HeaderSize || pos+size > limit {
			return TimestampOffset{}, false, fmt.Errorf("%w: bad batch in %s at %d", ErrStorage, s.logPath(), pos)
		}
		if h.MaxTimestamp() >= ts && h.LastOffset() >= lso {
			if h.TimestampType() == record.LogAppendTime || h.IsControl() && h.RecordCount() <= 1 {
				return TimestampOffset{Timestamp: h.MaxTimestamp(), Offset: max(h.BaseOffset(), lso)}, true, nil
			}
			if int64(cap(buf)) < size {
				buf = make([]byte, size)
			}
			buf = buf[:size]
			if _, err := s.log.ReadAt(buf, pos); err != nil {
				return TimestampOffset{}, false, fmt.Errorf("%w: %v", ErrStorage, err)
			}
			b := record.Batch(buf)
			var found TimestampOffset
			ok := false
			errStop := fmt.Errorf("stop")
			err := b.ForEachRecord(l.cfg.MaxDecompressedBytes, func(r *record.Record) error {
				rts := b.BaseTimestamp() + r.TimestampDelta
				off := b.BaseOffset() + int64(r.OffsetDelta)
				if rts >= ts && off >= lso {
					found, ok = TimestampOffset{Timestamp: rts, Offset: off}, true
					return errStop
				}
				return nil
			})
			if ok {
				return found, true, nil
			}
			if err != nil {
				return TimestampOffset{}, false, fmt.Errorf("%w: batch at %d: %v", ErrCorruptRecord, b.BaseOffset(), err)
			}
		}
		pos += size
	}
	return TimestampOffset{}, false, nil
}
