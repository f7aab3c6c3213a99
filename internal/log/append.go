package log

import (
	"time"

	"fmt"

	"github.com/karst-broker/karst/internal/record"
)

// AppendOptions says who appends and under which leader epoch.
type AppendOptions struct {
	Origin Origin
	// LeaderEpoch is stamped into every batch's partitionLeaderEpoch and
	// recorded in leader-epoch-checkpoint when new; -1 leaves batches alone.
	LeaderEpoch int32
	// TransactionVersion is the transaction version (KIP-890) under which
	// the coordinator writes a commit or abort marker (WriteTxnMarkers
	// carries it; the log does not). From 2 on a marker must carry a newer
	// producer epoch than the partition has seen. 0 and 1 are the same.
	TransactionVersion int8
	// VerifyTransaction asks that a transactional batch opening its
	// producer's transaction in the partition carry VerificationGuard, the
	// guard StartTransactionVerification gave before the transaction
	// coordinator verified the partition (KIP-890 part 1); otherwise it is
	// ErrInvalidTxnState.
	VerifyTransaction bool
	VerificationGuard VerificationGuard
}

// txnEvent is a transaction an appended batch started or ended, applied to
// the open-transaction set once the batches are written.
type txnEvent struct {
	completedTxn      // for an end
	bufPos       int  // where the starting batch lies in the appended buffer
	end          bool // false: a start (completedTxn.firstOffset holds it)
}

// AppendResult describes a successful append.
type AppendResult struct {
	FirstOffset    int64 // base offset of the first batch (-1 for an empty append)
	LastOffset     int64 // last offset of the last batch
	LogAppendTime  int64 // broker time stamped into the batches, or -1 (CreateTime)
	LogStartOffset int64
	RecordCount    int
	// Duplicate: the batch repeats one of the producer's last five; nothing
	// was written and the offsets are those of the original write.
	Duplicate bool
}

// Append validates batches (concatenated v2 batches, as a Produce request
// carries them), assigns offsets by rewriting each batch's baseOffset in
// place (and its partitionLeaderEpoch, and for LogAppendTime topics its
// maxTimestamp and CRC), and writes them to the active segment, rolling it
// first when segment.bytes, segment.ms or the indexes say so. The caller's
// buffer is modified and may be reused once Append returns.
//
// Append does not wait for fsync; call WaitDurable(ctx, res.LastOffset)
// before acknowledging. Errors are the sentinels in errors.go (wrapped).
func (l *Log) Append(batches []byte, opt AppendOptions) (AppendResult, error) {
	res := AppendResult{FirstOffset: -1, LastOffset: -1, LogAppendTime: -1}
	records, firstMaxTS, err := l.validate(batches, opt.Origin)
	if err != nil {
		return res, err
	}
	if len(batches) == 0 {
		res.LogStartOffset = l.LogStartOffset()
		return res, nil
	}
	now := l.now()
	nowMs := now.UnixMilli()

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() || l.sealed.Load() {
		return res, ErrClosed
	}
	if l.flush.offline.Load() {
		return res, l.storageFailure()
	}
	appendTime := l.cfg.TimestampType == record.LogAppendTime && opt.Origin != FromReplication
	next := l.logEndOffset.Load()
	l.pending.reset()
	l.txnEvents = l.txnEvents[:0]
	sp := record.NewSplitter(batches, 0)
	sp.SkipCRC = true // checked by validate
	for {
		bufPos := sp.Pos()
		b, _ := sp.Next()
		if b == nil {
			break
		}
		if opt.Origin == FromReplication {
			if b.BaseOffset() < next {
				return res, fmt.Errorf("%w: replicated batch at %d below log end %d", ErrInvalidRecord, b.BaseOffset(), next)
			}
		} else {
			b.SetBaseOffset(next)
		}
		if b.HasProducerID() {
			e := l.pending.get(l.producers, b.ProducerID())
			if opt.Origin == FromClient {
				if dup, ok := e.findDuplicate(b.ProducerEpoch(), b.BaseSequence(), b.LastSequence()); ok {
					// As Kafka's UnifiedLog: the original batch's timestamp
					// stands for the append time of a duplicate.
					res.FirstOffset, res.LastOffset, res.Duplicate = dup.firstOffset, dup.lastOffset, true
					res.LogAppendTime = dup.timestamp
					res.LogStartOffset = l.logStartOffset.Load()
					return res, nil
				}
			}
			var marker *record.Marker
			if b.IsControl() {
				m, err := record.ParseMarker(b)
				switch {
				case err == nil:
					marker = &m
					if err := e.checkMarker(b.ProducerEpoch(), m, opt.TransactionVersion, opt.Origin); err != nil {
						return res, err
					}
				case opt.Origin == FromCoordinator:
					return res, fmt.Errorf("%w: control batch is not a transaction marker: %v", ErrInvalidRecord, err)
				}
			} else if err := e.check(b, opt.Origin); err != nil {
				return res, err
			} else if opt.VerifyTransaction && b.IsTransactional() && !e.openAt(b.ProducerEpoch()) && !l.producers.verified(b.ProducerID(), opt.VerificationGuard) {
				return res, fmt.Errorf("%w: the batch is not part of an ongoing transaction", ErrInvalidTxnState)
			}
			if b.IsTransactional() && l.producers.endsVerification(b) {
				e.clearVerification = true
			}
			prev := e.update(b, marker)
			switch {
			case marker != nil && prev >= 0:
				l.txnEvents = append(l.txnEvents, txnEvent{end: true, completedTxn: completedTxn{producerID: b.ProducerID(),
					firstOffset: prev, lastOffset: b.BaseOffset(), aborted: marker.Type == record.ControlAbort}})
			case marker == nil && prev < 0 && e.currentTxnFirstOffset >= 0:
				l.txnEvents = append(l.txnEvents, txnEvent{bufPos: bufPos,
					completedTxn: completedTxn{producerID: b.ProducerID(), firstOffset: e.currentTxnFirstOffset}})
			}
		}
		if opt.LeaderEpoch >= 0 {
			b.SetPartitionLeaderEpoch(opt.LeaderEpoch)
		}
		if appendTime {
			b.SetLogAppendTime(nowMs)
		}
		if res.FirstOffset < 0 {
			res.FirstOffset = b.BaseOffset()
		}
		res.LastOffset = b.LastOffset()
		next = res.LastOffset + 1
	}

	if l.active().shouldRoll(&l.cfg, len(batches), res.LastOffset, firstMaxTS, now) {
		if err := l.roll(l.logEndOffset.Load(), now); err != nil {
			l.failStorage("rolling a segment", err)
			return res, err
		}
	}
	writePos := l.active().size.Load()
	if err := l.active().append(batches, l.cfg.IndexIntervalBytes); err != nil {
		l.failStorage(fmt.Sprintf("appending %d bytes at offset %d", len(batches), res.FirstOffset), err)
		return res, err
	}
	l.pending.commit(l.producers)
	if len(l.txnEvents) > 0 {
		l.applyTxnEvents(writePos)
	}
	if opt.LeaderEpoch >= 0 && l.epochs.assign(opt.LeaderEpoch, res.FirstOffset) {
		if err := l.epochs.write(); err != nil {
			// The batches are written; what they cannot be is acknowledged.
			l.failStorage("writing the leader epoch checkpoint", err)
		}
	}
	l.logEndOffset.Store(next)
	l.highWatermark.Store(next)
	l.unflushedMessages += int64(records)
	if l.durability == PageCache && l.unflushedMessages >= l.flushMessages {
		l.kickFlusher()
	}
	l.wakeWaiters()
	if appendTime {
		res.LogAppendTime = nowMs
	}
	res.RecordCount = records
	res.LogStartOffset = l.logStartOffset.Load()
	return res, nil
}

// applyTxnEvents updates the open-transaction set and the active
// segment's aborted-transaction index after a write that started or ended
// transactions. As Kafka, all starts of the append are applied before the
// ends, whose txnindex entries record the LSO right after each. Caller
// holds the write lock.
func (l *Log) applyTxnEvents(writePos int64) {
	seg := l.active()
	for _, ev := range l.txnEvents {
		if !ev.end {
			l.producers.begin(ongoingTxn{producerID: ev.producerID, firstOffset: ev.firstOffset,
				segmentBase: seg.baseOffset, position: writePos + int64(ev.bufPos)})
		}
	}
	for _, ev := range l.txnEvents {
		if ev.end {
			l.completeTxn(seg, ev.completedTxn)
		}
	}
	l.firstUnstable.Store(l.producers.firstUnstableOffset())
}

// completeTxn ends a transaction; an abort gets its txnindex entry in seg,
// the segment holding the marker.
func (l *Log) completeTxn(seg *segment, c completedTxn) {
	if c.aborted {
		a := AbortedTxn{ProducerID: c.producerID, FirstOffset: c.firstOffset, LastOffset: c.lastOffset,
			LastStableOffset: l.producers.lastStableOffsetAfter(c)}
		if err := seg.txnIdx.append(a); err != nil {
			// The marker is written but its abort is not indexed: as after a
			// failed fsync, nothing more may be acknowledged, so that the
			// recovery point stays where recovery rebuilds the index.
			l.failStorage(fmt.Sprintf("writing the aborted transaction index of segment %d", seg.baseOffset), err)
		}
	}
	l.producers.complete(c)
}

// validate checks every batch before the lock is taken (CRC is the costly
// part): framing, magic, CRC, size limit and, for client batches, Kafka's
// LogValidator rules on counts and control batches.
func (l *Log) validate(batches []byte, origin Origin) (records int, firstMaxTS int64, err error) {
	firstMaxTS = record.NoTimestamp
	sp := record.NewSplitter(batches, 0)
	for {
		b, err := sp.Next()
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %v", ErrCorruptRecord, err)
		}
		if b == nil {
			return records, firstMaxTS, nil
		}
		if max := l.maxMessageBytes.Load(); int64(len(b)) > max {
			return 0, 0, fmt.Errorf("%w: %d bytes > %d", ErrMessageTooLarge, len(b), max)
		}
		count := b.RecordCount()
		if origin == FromClient {
			if b.IsControl() {
				return 0, 0, fmt.Errorf("%w: control batch from a client", ErrInvalidRecord)
			}
			if count <= 0 || int64(count) != int64(b.LastOffsetDelta())+1 {
				return 0, 0, fmt.Errorf("%w: record count %d does not match last offset delta %d", ErrInvalidRecord, count, b.LastOffsetDelta())
			}
			if b.IsTransactional() && !b.HasProducerID() {
				return 0, 0, fmt.Errorf("%w: transactional batch without producer id", ErrInvalidRecord)
			}
		} else if b.LastOffsetDelta() < 0 {
			return 0, 0, fmt.Errorf("%w: negative last offset delta", ErrInvalidRecord)
		}
		if origin == FromClient {
			if err := l.timestampRules.Load().check(b, l.now()); err != nil { // l.now: cfg changes under UpdateConfig
				return 0, 0, err
			}
		}
		if firstMaxTS == record.NoTimestamp {
			firstMaxTS = b.MaxTimestamp()
		}
		records += int(count)
	}
}

// roll closes the active segment for appends and starts a new one at
// newBase, as Kafka's roll: final time index entry, trimmed indexes, a
// producer snapshot named by the new base, and an fsync of the old segment
// handed to the flusher. Caller holds the write lock.
func (l *Log) roll(newBase int64, now time.Time) error {
	old := l.active()
	if old.size.Load() == 0 && old.baseOffset == newBase {
		return nil
	}
	if err := old.onBecomeInactive(); err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	s, err := createSegment(l.dir, newBase, l.cfg.SegmentIndexBytes, now)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	l.segments = append(l.segments, s)
	l.toSync = append(l.toSync, old)
	l.dirDirty = true
	if err := l.producers.writeSnapshot(l.dir, newBase); err != nil {
		l.failStorage(fmt.Sprintf("writing the producer snapshot at %d", newBase), err)
	}
	l.logger.Debug("rolled segment", "old", old.baseOffset, "new", newBase, "oldBytes", old.size.Load())
	l.kickFlusher()
	return nil
}
