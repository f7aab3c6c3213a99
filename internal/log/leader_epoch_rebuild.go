package log

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/karst-broker/karst/internal/record"
)

// loadLeaderEpochs loads leader-epoch-checkpoint. A checkpoint that cannot
// be read or does not make sense (epochs not increasing, start offsets
// going back) is logged at WARN and rebuilt from the partitionLeaderEpoch
// of the log's batches, and entries past the log end are logged when
// dropped. Kafka fails the log dir on an unreadable checkpoint
// (CheckpointFileWithFailureHandler); Karst keeps serving, with an epoch
// cache that describes the log it holds. Caller holds the write lock or
// owns the log (Open).
func (l *Log) loadLeaderEpochs(logStart, logEnd int64) error {
	path := filepath.Join(l.dir, LeaderEpochCheckpointFile)
	c, err := loadLeaderEpochCache(l.dir)
	if err == nil {
		err = c.validate()
	}
	if err != nil {
		l.logger.Warn("rebuilding the leader epoch cache from the log's batches", "file", path, "reason", err)
		if c, err = l.leaderEpochsFromBatches(); err != nil {
			return err
		}
		l.epochs = c
		if err := c.write(); err != nil {
			return fmt.Errorf("%w: writing %s: %v", ErrStorage, path, err)
		}
		l.logger.Warn("rebuilt the leader epoch cache", "file", path, "entries", len(c.entries))
		return nil
	}
	l.epochs = c
	before := append([]EpochEntry(nil), c.entries...)
	if c.truncateFromEnd(logEnd) {
		l.logger.Warn("dropped leader epoch entries past the log end", "file", path, "logEndOffset", logEnd,
			"entries", before[len(c.entries):])
		c.truncateFromStart(logStart)
		return c.write()
	}
	if c.truncateFromStart(logStart) {
		return c.write()
	}
	return nil
}

// validate checks what Kafka's cache keeps true: epochs strictly
// increasing, start offsets never decreasing and not negative.
func (c *leaderEpochCache) validate() error {
	for i, e := range c.entries {
		if e.Epoch < 0 || e.StartOffset < 0 {
			return fmt.Errorf("%w %s: entry %d (%d %d) is negative", errBadCheckpoint, c.path, i, e.Epoch, e.StartOffset)
		}
		if i > 0 && (e.Epoch <= c.entries[i-1].Epoch || e.StartOffset < c.entries[i-1].StartOffset) {
			return fmt.Errorf("%w %s: entry %d (%d %d) out of order", errBadCheckpoint, c.path, i, e.Epoch, e.StartOffset)
		}
	}
	return nil
}

// leaderEpochsFromBatches rebuilds the cache from the batch headers of
// every segment: each epoch starts at the first batch stamped with it.
func (l *Log) leaderEpochsFromBatches() (*leaderEpochCache, error) {
	c := &leaderEpochCache{path: filepath.Join(l.dir, LeaderEpochCheckpointFile)}
	hdr := headerPool.Get().(*[record.HeaderSize]byte)
	defer headerPool.Put(hdr)
	for _, s := range l.segments {
		limit := s.size.Load()
		var size int64
		for pos := int64(0); pos < limit; pos += size {
			h, err := s.readHeader(pos, limit, hdr)
			if errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%w: reading %s at %d: %v", ErrStorage, s.logPath(), pos, err)
			}
			if size = int64(h.BatchLength()) + record.LogOverhead; size < record.HeaderSize {
				return nil, fmt.Errorf("%w: batch length %d at position %d of %s", ErrCorruptRecord, h.BatchLength(), pos, s.logPath())
			}
			c.assign(h.PartitionLeaderEpoch(), h.BaseOffset())
		}
	}
	return c, nil
}
