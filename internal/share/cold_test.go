package share

import (
	"reflect"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// coldSnapshotAt is a ShareSnapshot found in the log.
type coldSnapshotAt struct {
	offset int64
	key    Key
	v      snapshotValue
}

func snapshotsIn(t *testing.T, log *coordinator.MemoryLog) []coldSnapshotAt {
	t.Helper()
	var out []coldSnapshotAt
	for _, e := range log.Entries() {
		typ, k, err := decodeKey(e.Key)
		if err != nil || typ != recordSnapshot || e.Value == nil {
			continue
		}
		v, err := decodeSnapshotValue(e.Value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, coldSnapshotAt{e.Offset, k, v})
	}
	return out
}

// waitSnapshots waits until the log holds n snapshots and the shard has
// replayed them (the snapshot epoch of each key is the last written).
func waitSnapshots(t *testing.T, c *Coordinator, log *coordinator.MemoryLog, n int) []coldSnapshotAt {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		snaps := snapshotsIn(t, log)
		if len(snaps) == n && replayed(t, c, snaps) {
			return snaps
		}
		if len(snaps) > n || time.Now().After(deadline) {
			t.Fatalf("%d snapshots in the log, want %d", len(snaps), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func replayed(t *testing.T, c *Coordinator, snaps []coldSnapshotAt) bool {
	last := map[Key]int32{}
	for _, s := range snaps {
		last[s.key] = s.v.SnapshotEpoch
	}
	for k, epoch := range last {
		got, err := coordinator.Read(c.rt, c.PartitionFor(k), func(s *stateShard) (int32, error) { return s.states[k].snapshotEpoch, nil })
		if err != nil {
			t.Fatal(err)
		}
		if got != epoch {
			return false
		}
	}
	return true
}

// TestColdPartitionSnapshots: a share-partition whose latest snapshot is
// share.coordinator.cold.partition.snapshot.interval.ms old is snapshotted
// again as Kafka 4.4's share coordinator does (snapshot epoch + 1, its
// state with the updates since folded in, the create timestamp kept, the
// write timestamp now), so pruning passes its old records; once every
// share-partition's latest snapshot is such a cold one none is written,
// until a share-partition writes a snapshot of its own again.
func TestColdPartitionSnapshots(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	clock := coordinator.NewManualClock(t0)
	logs := coordinator.NewMemoryLogs()
	const every = time.Minute
	opts := CoordinatorOptions{Logs: logs, Partitions: 1, UpdatesPerSnapshot: 3, ColdSnapshotInterval: every, Clock: clock}
	c := NewCoordinator(opts)
	defer func() { c.Close() }()
	log := logs.Partition(0)
	cold := Key{Group: "g", TopicID: [16]byte{1}, Partition: 0}
	hot := Key{Group: "g", TopicID: [16]byte{1}, Partition: 1}
	for _, k := range []Key{cold, hot} {
		if err := c.Initialize(k, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	write := func(k Key, first int64) {
		t.Helper()
		u := Update{LeaderEpoch: 0, StartOffset: 0, DeliveryCompleteCount: 1,
			Batches: []StateBatch{{FirstOffset: first, LastOffset: first, DeliveryState: Archived, DeliveryCount: 1}}}
		if err := c.WriteState(k, u); err != nil {
			t.Fatal(err)
		}
	}
	write(cold, 3)
	write(hot, 5)
	waitSnapshots(t, c, log, 2)

	clock.Advance(every - time.Millisecond)
	waitSnapshots(t, c, log, 2)
	want, err := c.ReadState(cold)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Millisecond)
	snaps := waitSnapshots(t, c, log, 4)
	for _, s := range snaps[2:] {
		if s.v.SnapshotEpoch != 1 || s.v.CreateTimestamp != t0.UnixMilli() || s.v.WriteTimestamp != t0.Add(every).UnixMilli() {
			t.Fatalf("cold snapshot of %+v: epoch %d, created %d, written %d; want 1, %d, %d", s.key, s.v.SnapshotEpoch,
				s.v.CreateTimestamp, s.v.WriteTimestamp, t0.UnixMilli(), t0.Add(every).UnixMilli())
		}
	}
	got, err := c.ReadState(cold)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || got.DeliveryCompleteCount != 1 || len(got.Batches) != 1 {
		t.Fatalf("state after the cold snapshot %+v, want %+v with its one update", got, want)
	}
	// Everything below the two cold snapshots is superseded: pruning gets
	// there, where before it stopped at the first Initialize.
	if err := c.Prune(); err != nil {
		t.Fatal(err)
	}
	if start := log.LogStartOffset(); start != snaps[2].offset {
		t.Fatalf("log start offset %d after pruning, want %d (the first cold snapshot)", start, snaps[2].offset)
	}

	// Both latest snapshots are cold ones: another interval writes none,
	// though hot keeps writing updates.
	// (The two Initialize snapshots are pruned: two are left.)
	write(hot, 6)
	clock.Advance(every)
	waitSnapshots(t, c, log, 2)

	// After three updates since its snapshot, hot's next write is a
	// snapshot of its own; one interval after cold's last snapshot, cold
	// is written again.
	clock.Advance(every / 2)
	write(hot, 7)
	write(hot, 8)
	write(hot, 9)
	snaps = waitSnapshots(t, c, log, 3)
	if s := snaps[2]; s.key != hot || s.v.CreateTimestamp != s.v.WriteTimestamp {
		t.Fatalf("hot's own snapshot: %+v", s)
	}
	clock.Advance(every / 2)
	snaps = waitSnapshots(t, c, log, 4)
	if s := snaps[3]; s.key != cold || s.v.SnapshotEpoch != 2 || s.v.CreateTimestamp != t0.UnixMilli() {
		t.Fatalf("cold's second cold snapshot: %+v", s)
	}

	// A reload sets the timers from the write timestamps it reads: hot,
	// whose own snapshot is more than an interval old by then, is
	// snapshotted as soon as it loads.
	c.Close()
	clock.Advance(2 * every)
	c = NewCoordinator(opts)
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	clock.Advance(0)
	deadline := time.Now().Add(10 * time.Second)
	for {
		snaps = snapshotsIn(t, log)
		if s := snaps[len(snaps)-1]; s.key == hot && s.v.WriteTimestamp == clock.Now().UnixMilli() && s.v.SnapshotEpoch == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cold snapshot of hot after the reload: %+v", snaps[len(snaps)-1])
		}
		time.Sleep(time.Millisecond)
	}
}
