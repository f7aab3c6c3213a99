package log

import "path/filepath"

// Seal stops appends to the log for good (they fail with ErrClosed, which
// clients retry after refreshing their metadata) while reads go on: the
// last step of moving a partition to another log dir, when what remains
// is copied and the copy takes the log's place. It waits for an append in
// progress to finish.
func (l *Log) Seal() {
	l.mu.Lock()
	l.sealed.Store(true)
	l.mu.Unlock()
}

// WriteLeaderEpochCheckpoint writes the leader-epoch-checkpoint of the
// partition directory dir (a copy of a log, before it is opened).
func WriteLeaderEpochCheckpoint(dir string, entries []EpochEntry) error {
	c := &leaderEpochCache{path: filepath.Join(dir, LeaderEpochCheckpointFile), entries: entries}
	return c.write()
}
