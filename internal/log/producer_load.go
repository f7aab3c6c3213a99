package log

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// Producer state and the aborted-transaction indexes are rebuilt together
// at Open, as Kafka's LogLoader does: the state is loaded from the newest
// snapshot taken at or before the first segment whose txnindex must be
// rebuilt (every segment recovery validated, and any older one whose
// txnindex is unreadable), and the batches after it are replayed. Each
// abort marker met in such a segment gets its txnindex entry again, with
// the LSO computed from the replayed open transactions, so the rebuilt
// bytes equal what Append wrote.

// checkTxnIndex checks the txnindex of a segment below the recovery point
// and schedules a rebuild if it is unreadable or names markers outside
// the segment.
func (l *Log) checkTxnIndex(s *segment, nextBase int64) error {
	err := s.txnIdxErr
	if err == nil {
		err = s.txnIdx.sanityCheck(s.baseOffset, nextBase)
	}
	if err == nil {
		return nil
	}
	l.logger.Warn("rebuilding transaction index of segment", "segment", s.baseOffset, "reason", err)
	if err := s.txnIdx.reset(); err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	s.rebuildTxnIdx = true
	return nil
}

// loadProducerState restores producer state and open transactions and
// refills the txnindexes recovery emptied.
func (l *Log) loadProducerState(leo int64, now time.Time) error {
	rebuildFrom := leo
	for _, s := range l.segments {
		if s.rebuildTxnIdx {
			rebuildFrom = s.baseOffset
			break
		}
	}
	from, err := l.producers.loadSnapshotAtOrBefore(l.dir, rebuildFrom, leo, l.logger)
	if err != nil {
		return err
	}
	if from < l.segments[0].baseOffset {
		l.producers = newProducerStateManager()
		from = l.segments[0].baseOffset
	}
	l.producers.rebuildOngoing()
	scratch := make([]byte, 256)
	for _, s := range l.segments {
		if s.nextOffset <= from {
			continue
		}
		if scratch, err = l.replaySegment(s, from, scratch); err != nil {
			return err
		}
	}
	for _, s := range l.segments {
		if s.rebuildTxnIdx {
			if err := s.txnIdx.sync(); err != nil {
				return fmt.Errorf("%w: %v", ErrStorage, err)
			}
			s.rebuildTxnIdx = false
		}
	}
	l.locateOngoingTxns()
	l.firstUnstable.Store(l.producers.firstUnstableOffset())
	l.producers.removeExpired(now.UnixMilli(), l.cfg.ProducerIDExpiration.Milliseconds())
	return nil
}

// maxMarkerBatch bounds how much of a control batch replay reads to find
// its marker; Kafka's markers are under 100 bytes.
const maxMarkerBatch = 1 << 16

// replaySegment applies the batches of s at or after from to the producer
// state, refilling the segment's txnindex if it is being rebuilt. scratch
// is a buffer for control batches, returned grown.
func (l *Log) replaySegment(s *segment, from int64, scratch []byte) ([]byte, error) {
	hdr := headerPool.Get().(*[record.HeaderSize]byte)
	defer headerPool.Put(hdr)
	limit := s.size.Load()
	var size int64
	for pos := int64(0); pos < limit; pos += size {
		h, err := s.readHeader(pos, limit, hdr)
		if err != nil {
			return scratch, fmt.Errorf("%w: replaying producer state from %s: %v", ErrStorage, s.logPath(), err)
		}
		size = int64(h.BatchLength()) + record.LogOverhead
		if size < record.HeaderSize {
			return scratch, fmt.Errorf("%w: bad batch in %s at %d", ErrStorage, s.logPath(), pos)
		}
		if h.BaseOffset() < from || !h.HasProducerID() {
			continue
		}
		var marker *record.Marker
		if h.IsControl() && size <= maxMarkerBatch && pos+size <= limit {
			if int64(cap(scratch)) < size {
				scratch = make([]byte, size)
			}
			b := record.Batch(scratch[:size])
			if _, err := s.log.ReadAt(b, pos); err == nil {
				if m, err := record.ParseMarker(b); err == nil {
					marker = &m
				}
			}
			h = b
		}
		c, ended := l.producers.replay(h, marker, s.baseOffset, pos)
		if !ended {
			continue
		}
		if c.aborted && s.rebuildTxnIdx {
			a := AbortedTxn{ProducerID: c.producerID, FirstOffset: c.firstOffset, LastOffset: c.lastOffset,
				LastStableOffset: l.producers.lastStableOffsetAfter(c)}
			if err := s.txnIdx.append(a); err != nil {
				return scratch, err
			}
		}
		l.producers.complete(c)
	}
	return scratch, nil
}

// locateOngoingTxns finds where the open transactions that began before
// the replay start lie, so read_committed reads need not search for them.
// One that begins below the log start offset stays unlocated: the LSO is
// clamped to the log start offset then.
func (l *Log) locateOngoingTxns() {
	for i := range l.producers.ongoing {
		t := &l.producers.ongoing[i]
		if t.position >= 0 || t.firstOffset < l.segments[0].baseOffset {
			continue
		}
		s := l.segments[l.segmentFor(t.firstOffset)]
		_, start := s.offsetIdx.lookup(t.firstOffset)
		if pos, _, found, err := s.translateOffset(t.firstOffset, start, s.size.Load()); err == nil && found {
			t.segmentBase, t.position = s.baseOffset, pos
		}
	}
}

// loadSnapshotAtOrBefore loads the newest readable snapshot at or before
// atMost, deleting corrupt ones and those past logEnd (a truncated log's).
// Snapshots between atMost and logEnd are kept. It returns the offset the
// state is valid at, or -1 if none was loaded. A corrupt snapshot is
// logged at WARN with its file and why, as Kafka's ProducerStateManager
// logs "Failed to load producer snapshot".
func (m *producerStateManager) loadSnapshotAtOrBefore(dir string, atMost, logEnd int64, logger *slog.Logger) (int64, error) {
	offs, err := listSnapshots(dir)
	if err != nil {
		return -1, err
	}
	for i := len(offs) - 1; i >= 0; i-- {
		path := FileName(dir, offs[i], SnapshotSuffix)
		if offs[i] > logEnd {
			_ = os.Remove(path)
			continue
		}
		if offs[i] > atMost {
			continue
		}
		buf, err := os.ReadFile(path)
		if err != nil {
			return -1, err
		}
		producers, err := decodeSnapshot(buf)
		if err != nil {
			logger.Warn("deleting corrupt producer snapshot", "file", path, "reason", err)
			_ = os.Remove(path)
			continue
		}
		m.producers = producers
		return offs[i], nil
	}
	return -1, nil
}

// lastStableOffset is min(max(first unstable offset, log start), high
// watermark), as Kafka's UnifiedLog.
func lastStableOffset(firstUnstable, logStart, highWatermark int64) int64 {
	if firstUnstable == math.MaxInt64 {
		return highWatermark
	}
	return min(max(firstUnstable, logStart), highWatermark)
}
