package share

import (
	"encoding/hex"
	"strconv"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// DefaultColdSnapshotInterval is Kafka's
// share.coordinator.cold.partition.snapshot.interval.ms (internal).
const DefaultColdSnapshotInterval = 5 * time.Minute

// coldRetry is how soon a cold snapshot is tried again when a write of
// its share-partition is on its way: the snapshot must include it.
const coldRetry = time.Second

// A share-partition written to no more has its latest snapshot far back
// in __share_group_state, and pruning cannot pass it however many records
// the busy share-partitions add. Kafka 4.4's share coordinator therefore
// writes, every cold interval, a new ShareSnapshot of each share-partition
// whose last snapshot is at least that old (snapshot epoch + 1, the same
// create timestamp, the write timestamp now), unless every share-partition
// of the partition was last snapshotted so (create timestamp != write
// timestamp): then the log is not growing and nothing needs to move.
// Here each share-partition has a keyed timer, set when its snapshot is
// replayed, so the snapshot comes one interval after the last, not at
// the next pass of a job.

func coldKey(k Key) string {
	return "cold/" + k.Group + "/" + hex.EncodeToString(k.TopicID[:]) + "/" + strconv.Itoa(int(k.Partition))
}

// coldSnapshotted is Kafka's test for a state whose last snapshot was a
// cold one.
func (e *entry) coldSnapshotted() bool { return e.created != e.written }

// scheduleCold sets k's cold timer for one interval after written (a
// snapshot's write timestamp, in ms), at once if that is past. The caller
// holds the shard's lock.
func (s *stateShard) scheduleCold(k Key, written int64) {
	if s.coldEvery <= 0 {
		return
	}
	s.armCold(k, max(time.UnixMilli(written).Add(s.coldEvery).Sub(s.ctx.Now()), 0))
}

// armCold sets k's cold timer to fire after d.
func (s *stateShard) armCold(k Key, d time.Duration) {
	s.ctx.Schedule(coldKey(k), d, func() ([]coordinator.Record, error) { return s.coldSnapshot(k), nil })
}

// coldSnapshot is k's timer: a snapshot of its state as it is.
func (s *stateShard) coldSnapshot(k Key) []coordinator.Record {
	e, ok := s.states[k]
	if !ok {
		return nil
	}
	if s.ctx.Writing(encodeKey(recordUpdate, k)) || s.ctx.Writing(encodeKey(recordSnapshot, k)) {
		s.armCold(k, min(coldRetry, s.coldEvery))
		return nil
	}
	now := s.ctx.Now().UnixMilli()
	if s.coldCount == len(s.states) {
		s.scheduleCold(k, now)
		return nil
	}
	st := e.state
	v := snapshotValue{SnapshotEpoch: e.snapshotEpoch + 1, StateEpoch: st.StateEpoch, LeaderEpoch: st.LeaderEpoch,
		StartOffset: st.StartOffset, CreateTimestamp: e.created, WriteTimestamp: now, Batches: st.Batches,
		DeliveryCompleteCount: st.DeliveryCompleteCount}
	return []coordinator.Record{{Key: encodeKey(recordSnapshot, k), Value: v.encode()}}
}

// setState replaces k's entry (nil: removes it), keeping the count of
// cold-snapshotted states and k's cold timer.
func (s *stateShard) setState(k Key, e *entry) {
	if old, ok := s.states[k]; ok && old.coldSnapshotted() {
		s.coldCount--
	}
	if e == nil {
		delete(s.states, k)
		s.ctx.Cancel(coldKey(k))
		return
	}
	s.states[k] = e
	if e.coldSnapshotted() {
		s.coldCount++
	}
	s.scheduleCold(k, e.written)
}
