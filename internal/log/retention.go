package log

import (
	"fmt"
)

// DeleteOldSegments applies retention: whole segments go when they lie
// below the log start offset and, unless the topic is compact-only
// (RetentionOff), when their newest timestamp is older than retention.ms or
// while the log exceeds retention.bytes; then the log start
// offset moves to the first remaining segment. As in Kafka, if every segment
// qualifies the active one is rolled first so the log keeps an empty active
// segment. It returns how many segments were deleted.
func (l *Log) DeleteOldSegments() (int, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() {
		return 0, ErrClosed
	}
	l.producers.removeExpired(now.UnixMilli(), l.cfg.ProducerIDExpiration.Milliseconds())
	segs := l.segments
	k := l.belowStartOffset()
	if l.cfg.RetentionTime >= 0 && !l.cfg.RetentionOff {
		limit := now.UnixMilli() - l.cfg.RetentionTime.Milliseconds()
		i := 0
		for i < len(segs) && segs[i].size.Load() > 0 && segs[i].largestTimestamp() < limit {
			i++
		}
		k = max(k, i)
	}
	if l.cfg.RetentionBytes >= 0 && !l.cfg.RetentionOff {
		var total int64
		for _, s := range segs {
			total += s.size.Load()
		}
		diff := total - l.cfg.RetentionBytes
		i := 0
		for i < len(segs) && diff-segs[i].size.Load() >= 0 {
			diff -= segs[i].size.Load()
			i++
		}
		k = max(k, i)
	}
	if k == 0 {
		return 0, nil
	}
	if k >= len(segs) {
		k = len(segs)
		if l.active().size.Load() > 0 {
			if err := l.roll(l.logEndOffset.Load(), now); err != nil {
				return 0, err
			}
		} else {
			k--
		}
	}
	return k, l.deleteSegments(k, "retention")
}

// belowStartOffset counts leading segments whose every offset is below the
// log start offset (the next segment starts at or before it).
func (l *Log) belowStartOffset() int {
	lso := l.logStartOffset.Load()
	i := 0
	for i+1 < len(l.segments) && l.segments[i+1].baseOffset <= lso {
		i++
	}
	return i
}

// deleteSegments removes the first k segments (never the active one) and
// advances the log start offset. Caller holds the write lock.
func (l *Log) deleteSegments(k int, reason string) error {
	if k >= len(l.segments) {
		k = len(l.segments) - 1
	}
	var firstErr error
	for _, s := range l.segments[:k] {
		l.logger.Info("deleting segment", "segment", s.baseOffset, "bytes", s.size.Load(), "reason", reason)
		if err := s.remove(l.cfg.FileDeleteDelay); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%w: %v", ErrStorage, err)
		}
	}
	l.segments = append(l.segments[:0:0], l.segments[k:]...)
	l.dirDirty = true
	kept := make([]*segment, 0, len(l.toSync))
	for _, s := range l.toSync {
		if s.baseOffset >= l.segments[0].baseOffset {
			kept = append(kept, s)
		}
	}
	l.toSync = kept
	newStart := max(l.logStartOffset.Load(), l.segments[0].baseOffset)
	l.setLogStartOffset(newStart)
	return firstErr
}

func (l *Log) setLogStartOffset(off int64) {
	l.logStartOffset.Store(off)
	if l.epochs.truncateFromStart(off) {
		if err := l.epochs.write(); err != nil {
			l.logger.Error("writing leader epoch checkpoint", "err", err)
		}
	}
	deleteSnapshotsBefore(l.dir, l.segments[0].baseOffset)
}

// DeleteRecords moves the log start offset up to offset (Kafka's
// DeleteRecords; the handler maps -1 to the high watermark) and deletes the
// segments wholly below it. It returns the new log start offset (the
// partition's low watermark). offset past the high watermark is
// ErrOffsetOutOfRange.
func (l *Log) DeleteRecords(offset int64) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() {
		return 0, ErrClosed
	}
	if offset < 0 || offset > l.highWatermark.Load() {
		return l.logStartOffset.Load(), fmt.Errorf("%w: %d is past the high watermark %d", ErrOffsetOutOfRange, offset, l.highWatermark.Load())
	}
	if offset <= l.logStartOffset.Load() {
		return l.logStartOffset.Load(), nil
	}
	l.logStartOffset.Store(offset)
	err := l.deleteSegments(l.belowStartOffset(), "log start offset moved by DeleteRecords")
	if err == nil && l.epochs.truncateFromStart(offset) {
		err = l.epochs.write()
	}
	return l.logStartOffset.Load(), err
}

// largestTimestamp is the newest batch timestamp, or the file's modification
// time when the batches carry none (Kafka's LogSegment.largestTimestamp).
func (s *segment) largestTimestamp() int64 {
	if s.maxTimestampSoFar >= 0 {
		return s.maxTimestampSoFar
	}
	if st, err := s.log.Stat(); err == nil {
		return st.ModTime().UnixMilli()
	}
	return 0
}
