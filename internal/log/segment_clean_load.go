package log

import (
	"fmt"

	"github.com/karst-broker/karst/internal/record"
)

// loadActiveClean prepares the active segment after a clean shutdown
// without validating its records, as Kafka's LogLoader trusts a log dir
// that carries its clean-shutdown marker: the indexes are sanity-checked
// and only the batches after the last offset-index entry (at most
// index.interval.bytes plus one batch) are read, header by header, to
// find the next offset, the largest timestamp and where the next index
// entry falls. Restart time then does not grow with the data. Anything
// inconsistent is an error, and the caller recovers the segment instead.
func (s *segment) loadActiveClean() error {
	size := s.size.Load()
	if err := s.offsetIdx.sanityCheck(size); err != nil {
		return err
	}
	if err := s.timeIdx.sanityCheck(); err != nil {
		return err
	}
	if size > 0 && s.timeIdx.count() == 0 {
		return fmt.Errorf("segment %d: time index empty for a non-empty segment", s.baseOffset)
	}
	hdr := headerPool.Get().(*[record.HeaderSize]byte)
	defer headerPool.Put(hdr)

	s.nextOffset = s.baseOffset
	s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = s.timeIdx.lastEntry()
	s.rollingBasedTimestamp = record.NoTimestamp
	s.bytesSinceLastIndexEntry = 0
	if size == 0 {
		return nil
	}
	first, err := s.readHeader(0, size, hdr)
	if err != nil {
		return fmt.Errorf("segment %d: first batch: %w", s.baseOffset, err)
	}
	s.rollingBasedTimestamp = first.MaxTimestamp()

	pos, prevLast, indexedLast := int64(0), s.baseOffset-1, int64(-1)
	if n := s.offsetIdx.count(); n > 0 {
		// An entry names a batch's position and its last offset.
		pos, indexedLast = s.offsetIdx.position(n-1), s.baseOffset+s.offsetIdx.relOffset(n-1)
	}
	for pos < size {
		h, err := s.readHeader(pos, size, hdr)
		if err != nil {
			return fmt.Errorf("segment %d: batch at %d: %w", s.baseOffset, pos, err)
		}
		batchSize := int64(h.BatchLength()) + record.LogOverhead
		if batchSize < record.HeaderSize || pos+batchSize > size || h.Magic() != record.Magic ||
			h.BaseOffset() <= prevLast || h.LastOffsetDelta() < 0 {
			return fmt.Errorf("segment %d: batch at %d does not follow offset %d", s.baseOffset, pos, prevLast)
		}
		if indexedLast >= 0 {
			if h.LastOffset() != indexedLast {
				return fmt.Errorf("segment %d: batch at %d ends at %d, its index entry says %d", s.baseOffset, pos, h.LastOffset(), indexedLast)
			}
			indexedLast = -1
		}
		if ts := h.MaxTimestamp(); ts > s.maxTimestampSoFar {
			s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = ts, h.LastOffset()
		}
		s.bytesSinceLastIndexEntry += int(batchSize)
		prevLast = h.LastOffset()
		pos += batchSize
	}
	s.nextOffset = prevLast + 1
	return nil
}
