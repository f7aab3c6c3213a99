package share

import (
	"reflect"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// TestPruneAdvancesLogStart: every prune interval the share coordinator
// deletes the records of __share_group_state below the oldest latest
// snapshot of its share-partitions, and a coordinator loaded from what is
// left holds the same state.
func TestPruneAdvancesLogStart(t *testing.T) {
	clock := coordinator.NewManualClock(time.Unix(1_700_000_000, 0))
	logs := coordinator.NewMemoryLogs()
	opts := CoordinatorOptions{Logs: logs, Partitions: 1, UpdatesPerSnapshot: 2, PruneInterval: time.Minute, Clock: clock}
	c := NewCoordinator(opts)
	a := Key{Group: "g", TopicID: [16]byte{1}, Partition: 0}
	b := Key{Group: "g", TopicID: [16]byte{1}, Partition: 1}
	gone := Key{Group: "h", TopicID: [16]byte{2}, Partition: 0}
	for _, k := range []Key{a, b, gone} {
		if err := c.Initialize(k, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(gone); err != nil {
		t.Fatal(err)
	}
	write := func(k Key, start int64, first, last int64) {
		t.Helper()
		u := Update{LeaderEpoch: 0, StartOffset: start, DeliveryCompleteCount: int32(last - first + 1),
			Batches: []StateBatch{{FirstOffset: first, LastOffset: last, DeliveryState: Acknowledged, DeliveryCount: 1}}}
		if err := c.WriteState(k, u); err != nil {
			t.Fatal(err)
		}
	}
	for i := range int64(20) {
		write(a, i, i+1, i+1)
	}
	write(b, 0, 3, 4)
	log := logs.Partition(0)
	clock.Advance(59 * time.Second)
	if got := log.LogStartOffset(); got != 0 {
		t.Fatalf("log start offset %d before the prune interval, want 0", got)
	}
	// b's latest snapshot is its Initialize (offset 1): nothing below it
	// but a's first snapshot can go.
	clock.Advance(time.Second)
	if got := log.LogStartOffset(); got != 1 {
		t.Fatalf("log start offset %d after the first prune, want 1 (b's snapshot)", got)
	}
	// Two more writes of b make it snapshot again past a's records.
	write(b, 0, 5, 5)
	write(b, 0, 6, 6)
	before := len(log.Entries())
	clock.Advance(time.Minute)
	start := log.LogStartOffset()
	if start <= 1 || len(log.Entries()) >= before {
		t.Fatalf("log start offset %d, %d of %d entries kept: the second prune deleted nothing", start, len(log.Entries()), before)
	}
	want := map[Key]State{}
	for _, k := range []Key{a, b} {
		st, err := c.ReadState(k)
		if err != nil {
			t.Fatal(err)
		}
		want[k] = st
	}
	c.Close()
	again := NewCoordinator(opts)
	defer again.Close()
	for k, st := range want {
		got, err := again.ReadState(k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, st) {
			t.Fatalf("%+v after pruning and a reload: %+v, want %+v", k, got, st)
		}
	}
	if _, ok, err := again.Lookup(gone); err != nil || ok {
		t.Fatalf("the deleted state came back after pruning: %v %v", ok, err)
	}
	for _, e := range log.Entries() {
		if e.Offset < start {
			t.Fatalf("entry at %d kept below the log start offset %d", e.Offset, start)
		}
	}
}
