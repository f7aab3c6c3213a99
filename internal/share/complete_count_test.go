package share

import (
	"testing"

	"github.com/karst-broker/karst/internal/coordinator"
)

// TestCompleteCountSettled: the share coordinator settles each write's
// DeliveryCompleteCount as Kafka 4.4's ShareCoordinatorShard does, keeps
// it through snapshots and updates, and reads it back after a reload.
func TestCompleteCountSettled(t *testing.T) {
	logs := coordinator.NewMemoryLogs()
	k := Key{Group: "g", TopicID: [16]byte{2}, Partition: 1}
	c := NewCoordinator(CoordinatorOptions{Logs: logs, Partitions: 1, UpdatesPerSnapshot: 2})
	count := func(c *Coordinator) int32 {
		t.Helper()
		st, err := c.ReadState(k)
		if err != nil {
			t.Fatal(err)
		}
		return st.DeliveryCompleteCount
	}
	if got := count(c); got != -1 {
		t.Fatalf("no state: count %d, want -1", got)
	}
	if err := c.Initialize(k, 0, 10); err != nil {
		t.Fatal(err)
	}
	if got := count(c); got != 0 {
		t.Fatalf("initialized: count %d, want 0", got)
	}
	steps := []struct {
		start int64
		count int32
		want  int32
		why   string
	}{
		{10, 4, 4, "same start offset, higher count"},
		{10, 2, 4, "same start offset: a lower count does not win"},
		{-1, 9, 4, "no start offset named: the count held stays"},
		{8, 1, 4, "behind the start offset: the count held stays"},
		{12, 3, 3, "the start offset moved on: the writer's count"},
		{12, -1, 3, "a v0 writer (-1) at the same start offset"},
	}
	for _, s := range steps {
		if err := c.WriteState(k, Update{LeaderEpoch: 0, StartOffset: s.start, DeliveryCompleteCount: s.count}); err != nil {
			t.Fatal(err)
		}
		if got := count(c); got != s.want {
			t.Fatalf("%s: count %d, want %d", s.why, got, s.want)
		}
	}
	c.Close()
	again := NewCoordinator(CoordinatorOptions{Logs: logs, Partitions: 1, UpdatesPerSnapshot: 2})
	defer again.Close()
	if got := count(again); got != 3 {
		t.Fatalf("after a reload: count %d, want 3", got)
	}
	snapshots, updates := 0, 0
	for _, e := range logs.Partition(0).Entries() {
		typ, _, err := decodeKey(e.Key)
		if err != nil {
			t.Fatal(err)
		}
		if typ == recordSnapshot {
			snapshots++
		} else {
			updates++
		}
	}
	if snapshots < 2 || updates < 2 {
		t.Fatalf("%d snapshots and %d updates: the count went through only one kind", snapshots, updates)
	}
}
