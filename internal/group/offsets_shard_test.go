package group

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// memoryOffsets are __consumer_offsets partitions in memory, whose
// durability the test holds and releases.
type memoryOffsets struct {
	*coordinator.MemoryLogs
	partitions int32
}

func (m memoryOffsets) Ensure() error     { return nil }
func (m memoryOffsets) Partitions() int32 { return m.partitions }

func newRuntimeCoordinator(t *testing.T, partitions int32) (*Coordinator, memoryOffsets) {
	t.Helper()
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: partitions}
	c := New(testConfig(), Options{Clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, Store: NewOffsetsStore(logs), Topics: fakeTopics{"t": 4}})
	if _, err := c.LoadAll(); err != nil {
		t.Fatal(err)
	}
	return c, logs
}

// TestRuntimeBatchesAPartitionsCommits: the commits of one partition's
// groups that arrive while a batch waits for the disk go out together in
// the next append, and OffsetFetch answers none of them before it is
// durable.
func TestRuntimeBatchesAPartitionsCommits(t *testing.T) {
	c, logs := newRuntimeCoordinator(t, 1)
	log := logs.Partition(0)
	log.Hold(true)
	var waits []Durable
	for i, g := range []string{"a", "b", "c"} {
		top, errs, wait := c.CommitOffsets(commit(g, "", -1, int64(10+i)))
		if top != nil || errs[0] != nil {
			t.Fatalf("commit of %s: %v %v", g, top, errs)
		}
		waits = append(waits, wait)
	}
	if n := log.Batches(); n != 1 {
		t.Fatalf("%d appends while the first waits for the disk, want 1 (the others queued)", n)
	}
	for _, g := range []string{"a", "b", "c"} {
		if _, got := c.FetchOffsets(g, nil); len(got) != 0 {
			t.Fatalf("OffsetFetch of %s answered %+v before it is durable", g, got)
		}
	}
	log.Sync() // a is durable; b and c go out in one append
	if err := waits[0](context.Background()); err != nil {
		t.Fatal(err)
	}
	wantOffsets(t, c, "a", 10)
	if _, got := c.FetchOffsets("b", nil); len(got) != 0 {
		t.Fatalf("OffsetFetch of b answered %+v before it is durable", got)
	}
	// The writer appended the next batch before it answered a.
	if n := log.Batches(); n != 2 {
		t.Fatalf("%d appends once a is durable, want 2", n)
	}
	log.Hold(false)
	log.Sync()
	for _, w := range waits[1:] {
		if err := w(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	wantOffsets(t, c, "b", 11)
	wantOffsets(t, c, "c", 12)
	if n := log.Batches(); n != 2 {
		t.Fatalf("%d appends for three commits, want 2", n)
	}
}

// TestRuntimeReloadKeepsGroupsAndOffsets: ReloadPartition (the runtime's
// Unload then Load) brings a partition's classic group back Stable at its
// generation, with its offsets, and leaves the other partitions alone.
func TestRuntimeReloadKeepsGroupsAndOffsets(t *testing.T) {
	const partitions = 3
	c, _ := newRuntimeCoordinator(t, partitions)
	h := &harness{t: t, clock: c.clock.(*fakeClock), store: &memStore{}, c: c}
	p := PartitionFor("g", partitions)
	other := groupIn((p+1)%partitions, partitions, "other")
	ids, gen := h.stableGroup("g", 2)
	_, _, wait := c.CommitOffsets(commit("g", ids[0], gen, 5))
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, wait = c.CommitOffsets(commit(other, "", -1, 9))
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	old, kept := c.group("g", false), c.group(other, false)
	if err := c.ReloadPartition(p); err != nil {
		t.Fatal(err)
	}
	if c.group("g", false) == old {
		t.Fatal("the partition's group was not loaded again from its log")
	}
	if c.group(other, false) != kept {
		t.Fatal("another partition's group was reloaded")
	}
	for _, id := range ids {
		if err := c.Heartbeat("g", id, nil, gen); err != nil {
			t.Fatalf("member %s after the reload: %v", id, err)
		}
	}
	if s := h.state("g"); s != Stable {
		t.Fatalf("group %v after the reload, want Stable", s)
	}
	wantOffsets(t, c, "g", 5)
	wantOffsets(t, c, other, 9)
}

// TestRuntimeResignedGroupDoesNotWrite: a request still holding a group
// whose partition was unloaded and loaded again does not write to the
// partition loaded since (its group is another object, which would never
// see the record), whatever it found before the reload.
func TestRuntimeResignedGroupDoesNotWrite(t *testing.T) {
	c, logs := newRuntimeCoordinator(t, 1)
	_, _, wait := c.CommitOffsets(commit("g", "", -1, 5))
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	held := c.group("g", false)
	if err := c.ReloadPartition(0); err != nil {
		t.Fatal(err)
	}
	before := logs.Partition(0).Batches()
	held.mu.Lock()
	_, err := held.appendRecords([]Record{{Key: offsetCommitKey("g", TopicPartition{Topic: "t"}), Value: offsetCommitValue(CommittedOffset{Offset: 9})}})
	held.mu.Unlock()
	if !errors.Is(err, errResigned) {
		t.Fatalf("a resigned group's write: %v, want errResigned", err)
	}
	if n := logs.Partition(0).Batches(); n != before {
		t.Fatalf("%d appends after the resigned group's write, want %d", n, before)
	}
	wantOffsets(t, c, "g", 5)
}
