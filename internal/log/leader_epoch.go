package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// LeaderEpochCheckpointFile is the per-partition file of (epoch, start offset).
const LeaderEpochCheckpointFile = "leader-epoch-checkpoint"

// EpochEntry is one line of leader-epoch-checkpoint: the first offset
// written under a leader epoch.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// leaderEpochCache is Kafka's LeaderEpochFileCache. Guarded by the Log lock.
type leaderEpochCache struct {
	path    string
	entries []EpochEntry
}

func loadLeaderEpochCache(dir string) (*leaderEpochCache, error) {
	c := &leaderEpochCache{path: filepath.Join(dir, LeaderEpochCheckpointFile)}
	lines, err := readCheckpoint(c.path, 2)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	for _, f := range lines {
		e, err1 := strconv.ParseInt(f[0], 10, 32)
		o, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w %s: %v", errBadCheckpoint, c.path, f)
		}
		c.entries = append(c.entries, EpochEntry{int32(e), o})
	}
	return c, nil
}

func (c *leaderEpochCache) write() error {
	lines := make([]string, len(c.entries))
	for i, e := range c.entries {
		lines[i] = fmt.Sprintf("%d %d", e.Epoch, e.StartOffset)
	}
	return writeCheckpoint(c.path, lines)
}

func (c *leaderEpochCache) latest() (EpochEntry, bool) {
	if len(c.entries) == 0 {
		return EpochEntry{}, false
	}
	return c.entries[len(c.entries)-1], true
}

// assign records that epoch starts at offset if epoch is new; it returns
// true when the file must be rewritten. Entries that conflict (a larger or
// equal epoch, or a start offset at or past this one) are dropped, as Kafka does.
func (c *leaderEpochCache) assign(epoch int32, offset int64) bool {
	if epoch < 0 {
		return false
	}
	if l, ok := c.latest(); ok && l.Epoch == epoch {
		return false
	}
	keep := c.entries[:0]
	for _, e := range c.entries {
		if e.Epoch < epoch && e.StartOffset < offset {
			keep = append(keep, e)
		}
	}
	c.entries = append(keep, EpochEntry{epoch, offset})
	return true
}

// truncateFromEnd drops entries starting at or after endOffset.
func (c *leaderEpochCache) truncateFromEnd(endOffset int64) bool {
	n := len(c.entries)
	for n > 0 && c.entries[n-1].StartOffset >= endOffset {
		n--
	}
	changed := n != len(c.entries)
	c.entries = c.entries[:n]
	return changed
}

// truncateFromStart drops entries wholly before startOffset and moves the
// first kept entry's start up to it.
func (c *leaderEpochCache) truncateFromStart(startOffset int64) bool {
	i := 0
	for i+1 < len(c.entries) && c.entries[i+1].StartOffset <= startOffset {
		i++
	}
	changed := i > 0
	c.entries = c.entries[i:]
	if len(c.entries) > 0 && c.entries[0].StartOffset < startOffset {
		c.entries[0].StartOffset = startOffset
		changed = true
	}
	return changed
}

// endOffsetFor answers OffsetForLeaderEpoch: the largest epoch <= requested
// and the offset where the next epoch starts (or logEnd for the latest).
// It returns (-1, -1) when requested precedes every entry.
func (c *leaderEpochCache) endOffsetFor(requested int32, logEnd int64) (int32, int64) {
	for i := len(c.entries) - 1; i >= 0; i-- {
		if c.entries[i].Epoch <= requested {
			if i == len(c.entries)-1 {
				return c.entries[i].Epoch, logEnd
			}
			return c.entries[i].Epoch, c.entries[i+1].StartOffset
		}
	}
	return -1, -1
}

// EpochForOffset is the leader epoch under which offset was written: the
// epoch of the last entry starting at or before it, or -1 when none does
// (as Kafka's LeaderEpochFileCache.epochForOffset).
func (l *Log) EpochForOffset(offset int64) int32 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	epoch := int32(-1)
	for _, e := range l.epochs.entries {
		if e.StartOffset > offset {
			break
		}
		epoch = e.Epoch
	}
	return epoch
}
