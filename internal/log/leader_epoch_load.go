package log

import (
	"fmt"
	"path/filepath"
)

// loadLeaderEpochs loads leader-epoch-checkpoint as Kafka's
// LeaderEpochFileCache does. A file that cannot be read or parsed (bad
// version, count or line) fails the log dir, as Kafka's
// CheckpointFileWithFailureHandler does: the log is not opened and the dir
// is reported offline. Entries that parse but are not monotonic are
// assigned one by one, each dropping the entries it conflicts with (logged
// at WARN), and entries past the log end are dropped. A negative epoch or
// start offset is malformed too (Kafka refuses it with an
// IllegalArgumentException that stops the broker). Caller holds the write
// lock or owns the log (Open).
func (l *Log) loadLeaderEpochs(logStart, logEnd int64) error {
	path := filepath.Join(l.dir, LeaderEpochCheckpointFile)
	read, err := loadLeaderEpochCache(l.dir)
	if err == nil {
		err = read.checkNotNegative()
	}
	if err != nil {
		abs, _ := filepath.Abs(path)
		msg := "Error while reading checkpoint file " + abs
		l.dirFailures.MaybeAddOfflineLogDir(filepath.Dir(l.dir), msg, err)
		return fmt.Errorf("%w: %s: %v", ErrStorage, msg, err)
	}
	c := &leaderEpochCache{path: read.path}
	for _, e := range read.entries {
		if dropped := c.assignLoaded(e); len(dropped) > 1 || (len(dropped) == 1 && dropped[0].StartOffset != e.StartOffset) {
			l.logger.Warn(fmt.Sprintf("New epoch entry %v caused truncation of conflicting entries %v. Cache now contains %d entries.",
				e, dropped, len(c.entries)), "file", path)
		}
	}
	l.epochs = c
	before := append([]EpochEntry(nil), c.entries...)
	if c.truncateFromEnd(logEnd) {
		l.logger.Warn("dropped leader epoch entries past the log end", "file", path, "logEndOffset", logEnd,
			"entries", before[len(c.entries):])
		c.truncateFromStart(logStart)
		return c.write()
	}
	if c.truncateFromStart(logStart) || len(c.entries) != len(read.entries) {
		return c.write()
	}
	return nil
}

// checkNotNegative refuses what Kafka's assign refuses.
func (c *leaderEpochCache) checkNotNegative() error {
	for i, e := range c.entries {
		if e.Epoch < 0 || e.StartOffset < 0 {
			return fmt.Errorf("%w %s: entry %d (%d %d) is negative", errBadCheckpoint, c.path, i, e.Epoch, e.StartOffset)
		}
	}
	return nil
}

// assignLoaded is Kafka's assign of one checkpoint entry at load: an entry
// of the latest epoch at or after its start offset changes nothing; any
// other first drops the entries from the end whose epoch or start offset
// is not below its own (maybeTruncateNonMonotonicEntries) and returns them.
func (c *leaderEpochCache) assignLoaded(e EpochEntry) (dropped []EpochEntry) {
	if last, ok := c.latest(); ok && last.Epoch == e.Epoch && e.StartOffset >= last.StartOffset {
		return nil
	}
	keep := len(c.entries)
	for keep > 0 && (c.entries[keep-1].Epoch >= e.Epoch || c.entries[keep-1].StartOffset >= e.StartOffset) {
		keep--
	}
	dropped = append(dropped, c.entries[keep:]...)
	c.entries = append(c.entries[:keep], e)
	return dropped
}
