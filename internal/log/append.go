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
	if l.closed.Load() {
		return res, ErrClosed
	}
	appendTime := l.cfg.TimestampType == record.LogAppendTime && opt.Origin != FromReplication
	next := l.logEndOffset.Load()
	l.pending.reset()
	sp := record.NewSplitter(batches, 0)
	sp.SkipCRC = true // checked by validate
	for {
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
					res.FirstOffset, res.LastOffset, res.Duplicate = dup.firstOffset, dup.lastOffset, true
					res.LogStartOffset = l.logStartOffset.Load()
					return res, nil
				}
			}
			if err := e.check(b, opt.Origin); err != nil {
				return res, err
			}
			e.update(b)
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
			return res, err
		}
	}
	if err := l.active().append(batches, l.cfg.IndexIntervalBytes); err != nil {
		return res, err
	}
	l.pending.commit(l.producers)
	if opt.LeaderEpoch >= 0 && l.epochs.assign(opt.LeaderEpoch, res.FirstOffset) {
		if err := l.epochs.write(); err != nil {
			l.logger.Error("writing leader epoch checkpoint", "err", err)
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
			if err := l.timestampRules.Load().check(b, l.cfg.Now()); err != nil {
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
		l.logger.Error("writing producer snapshot", "offset", newBase, "err", err)
	}
	l.logger.Debug("rolled segment", "old", old.baseOffset, "new", newBase, "oldBytes", old.size.Load())
	l.kickFlusher()
	return nil
}
