package share

import (
	"math"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// DefaultPruneInterval is Kafka's
// share.coordinator.state.topic.prune.interval.ms.
const DefaultPruneInterval = 5 * time.Minute

// redundancy tracks, in a partition of __share_group_state, the offset of
// each share-partition's latest ShareSnapshot: every record below the
// oldest of them is superseded by a snapshot after it, so the partition
// can be deleted up to there (Kafka's ShareCoordinatorOffsetsManager).
type redundancy struct {
	snapshots map[Key]int64
	// last is the redundant offset so far; MaxInt64 until a snapshot.
	last int64
}

// snapshot notes k's snapshot (or its tombstone, deleted) at offset.
func (r *redundancy) snapshot(k Key, offset int64, deleted bool) {
	if r.snapshots == nil {
		r.snapshots, r.last = map[Key]int64{}, math.MaxInt64
	}
	r.last = min(r.last, offset)
	r.snapshots[k] = offset
	if len(r.snapshots) > 0 {
		low := int64(math.MaxInt64)
		for _, o := range r.snapshots {
			low = min(low, o)
		}
		r.last = low
	}
	if deleted {
		// A deleted state needs nothing kept; its tombstone counted for
		// this round only, as Kafka's does.
		delete(r.snapshots, k)
	}
}

// redundant is the offset the partition may be deleted up to, 0 for none.
func (r *redundancy) redundant() int64 {
	if r.snapshots == nil || r.last == math.MaxInt64 || r.last <= 0 {
		return 0
	}
	return r.last
}

// pruner runs the prune job of the share coordinator's partitions every
// interval, remembering how far each was pruned.
type pruner struct {
	mu     sync.Mutex
	pruned map[int32]int64
	stop   func() bool
	closed bool
}

// schedulePrune arms the next prune job; a non-positive interval runs none.
func (c *Coordinator) schedulePrune() {
	if c.opts.PruneInterval <= 0 {
		return
	}
	c.prune.mu.Lock()
	defer c.prune.mu.Unlock()
	if c.prune.closed {
		return
	}
	c.prune.stop = c.opts.Clock.AfterFunc(c.opts.PruneInterval, func() {
		if err := c.Prune(); err != nil {
			c.opts.Logger.Warn("pruning __share_group_state", "err", err)
		}
		c.schedulePrune()
	})
}

func (c *Coordinator) stopPrune() {
	c.prune.mu.Lock()
	defer c.prune.mu.Unlock()
	c.prune.closed = true
	if c.prune.stop != nil {
		c.prune.stop()
	}
}

// Prune deletes, in each loaded partition of __share_group_state, the
// records below the oldest share-partition snapshot still needed (Kafka's
// write-state-record-prune job). It returns the first error; the other
// partitions are pruned all the same.
func (c *Coordinator) Prune() error {
	var first error
	for _, p := range c.rt.Partitions() {
		offset, err := coordinator.Read(c.rt, p, func(s *stateShard) (int64, error) { return s.redundancy.redundant(), nil })
		if err != nil || offset <= 0 {
			continue // not loaded (any more): its next owner prunes it
		}
		c.prune.mu.Lock()
		done := c.prune.pruned[p]
		c.prune.mu.Unlock()
		if offset <= done {
			continue
		}
		l, err := c.opts.Logs.Open(p)
		if err != nil {
			first = firstErr(first, err)
			continue
		}
		pl, ok := l.(coordinator.Pruner)
		if !ok {
			continue
		}
		start, err := pl.DeleteRecordsBefore(offset)
		if err != nil {
			first = firstErr(first, err)
			continue
		}
		c.prune.mu.Lock()
		c.prune.pruned[p] = start
		c.prune.mu.Unlock()
		c.opts.Logger.Debug("pruned __share_group_state", "partition", p, "log_start_offset", start)
	}
	return first
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
