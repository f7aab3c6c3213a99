package group

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
	"github.com/twmb/franz-go/pkg/kerr"
)

var errDisk = errors.New("fsync: input/output error")

// newRuntimeCoordinatorOver is newRuntimeCoordinator over logs the test
// made, so that a second coordinator (a restart) can load the same ones.
func newRuntimeCoordinatorOver(t *testing.T, logs OffsetsLogs, topics fakeTopics) *Coordinator {
	t.Helper()
	c := New(testConfig(), Options{Clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, Store: NewOffsetsStore(logs), Topics: topics})
	if _, err := c.LoadAll(); err != nil {
		t.Fatal(err)
	}
	return c
}

// lostUndurable drops what a failed fsync left in the log past its
// durable end, as a log truncates to it when it comes back; without it a
// MemoryLog would make those records durable at the next Sync.
func lostUndurable(t *testing.T, log *coordinator.MemoryLog, want int) {
	t.Helper()
	log.FailSyncs(nil)
	if n := log.Crash(); n != want {
		t.Fatalf("%d records were not durable, want %d", n, want)
	}
	log.Hold(false)
}

// drained returns once every write appended to partition so far is
// answered, so that the next one is appended at once rather than queued
// behind a batch still in flight: the answer to a commit appended last
// comes after theirs.
func drained(t *testing.T, c *Coordinator, partition int32) {
	t.Helper()
	_, _, wait := c.CommitOffsets(commit(groupIn(partition, c.store.(*OffsetsTopic).logs.Partitions(), "drained"), "", -1, 0))
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRuntimeFailedOffsetCommitIsNeverVisible: an offset commit whose
// append fails, or whose fsync fails, is answered with the error and never
// answered by OffsetFetch, before or after the reload the failed fsync
// causes; the commit retried once the log is healthy is.
func TestRuntimeFailedOffsetCommitIsNeverVisible(t *testing.T) {
	c, logs := newRuntimeCoordinator(t, 1)
	log := logs.Partition(0)
	_, _, wait := c.CommitOffsets(commit("g", "", -1, 5))
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}

	log.FailAppends(errDisk)
	top, errs, wait := c.CommitOffsets(commit("g", "", -1, 7))
	if top == nil && errs[0] == nil && wait(context.Background()) == nil {
		t.Fatal("a commit the log refused succeeded")
	}
	wantOffsets(t, c, "g", 5)
	log.FailAppends(nil)

	log.Hold(true)
	held := c.group("g", false)
	top, errs, wait = c.CommitOffsets(commit("g", "", -1, 9))
	if top != nil || errs[0] != nil {
		t.Fatalf("commit: %v %v", top, errs)
	}
	wantOffsets(t, c, "g", 5)
	log.FailSyncs(errDisk)
	if err := wait(context.Background()); !errors.Is(err, errDisk) {
		t.Fatalf("commit whose fsync failed: %v, want %v", err, errDisk)
	}
	// The runtime reloaded the partition before it answered.
	if c.group("g", false) == held {
		t.Fatal("the partition was not reloaded after the failed fsync")
	}
	wantOffsets(t, c, "g", 5)
	lostUndurable(t, log, 1)
	wantOffsets(t, c, "g", 5)

	_, _, wait = c.CommitOffsets(commit("g", "", -1, 9))
	if err := wait(context.Background()); err != nil {
		t.Fatalf("retried commit: %v", err)
	}
	wantOffsets(t, c, "g", 9)
	if err := c.ReloadPartition(0); err != nil {
		t.Fatal(err)
	}
	wantOffsets(t, c, "g", 9)
}

// TestRuntimeFailedGroupMetadataRevertsToDurableGeneration: when the
// fsync of a classic group's new generation fails, the partition is
// reloaded: a member waiting in a join is told NOT_COORDINATOR, the
// leader's SyncGroup answer fails, and the group served is the one its log
// holds, at the last durable generation with its members, whatever the
// group the requests held does with the failed write. Once the log is healthy the members
// rebalance again and their generation is durable.
func TestRuntimeFailedGroupMetadataRevertsToDurableGeneration(t *testing.T) {
	c, logs := newRuntimeCoordinator(t, 1)
	log := logs.Partition(0)
	h := &harness{t: t, clock: c.clock.(*fakeClock), store: &memStore{}, c: c}
	ids, gen := h.stableGroup("g", 1)
	a := ids[0]

	b, joinB := h.joinNew("g")
	joinA := c.Join(joinReq("g", a))
	ra, rb := ready(t, joinA), ready(t, joinB)
	wantErr(t, ra.Err, nil)
	wantErr(t, rb.Err, nil)
	if ra.Generation != gen+1 || ra.Leader != a {
		t.Fatalf("rejoin %+v, want generation %d led by %s", ra, gen+1, a)
	}
	syncB := c.Sync(SyncRequest{GroupID: "g", MemberID: b, Generation: ra.Generation})
	drained(t, c, 0)
	log.Hold(true)
	rs := ready(t, c.Sync(SyncRequest{GroupID: "g", MemberID: a, Generation: ra.Generation,
		Assignments: []Assignment{{MemberID: a, Assignment: []byte("A")}, {MemberID: b, Assignment: []byte("B")}}}))
	wantErr(t, rs.Err, nil)
	if rs.Wait == nil {
		t.Fatal("the leader's SyncGroup answer does not wait for the generation's record")
	}
	if log.Pending() == 0 {
		t.Fatal("the generation's record was not appended")
	}
	// A third member joins while the record waits for the disk.
	_, joinC := h.joinNew("g")
	waiting(t, joinC)

	held := c.group("g", false)
	log.FailSyncs(errDisk)
	if err := rs.Wait(context.Background()); !errors.Is(err, errDisk) {
		t.Fatalf("SyncGroup answer's wait: %v, want %v", err, errDisk)
	}
	if r := ready(t, joinC); r.Err != kerr.NotCoordinator {
		t.Fatalf("member waiting in a join: %v, want NOT_COORDINATOR", r.Err)
	}
	if r := ready(t, syncB); r.Wait == nil || !errors.Is(r.Wait(context.Background()), errDisk) {
		t.Fatalf("follower's SyncGroup answer %+v does not fail with the write", r)
	}
	if c.group("g", false) == held {
		t.Fatal("the partition was not reloaded after the failed fsync")
	}
	// The group the requests held was retired by the unload; its own
	// revert leaves the group served alone.
	held.mu.Lock()
	heldState := held.state
	held.mu.Unlock()
	if heldState != Dead {
		t.Fatalf("the group the requests held is %v, want Dead", heldState)
	}
	wantErr(t, c.Heartbeat("g", a, nil, gen), nil)
	wantErr(t, c.Heartbeat("g", a, nil, gen+1), kerr.IllegalGeneration)
	wantErr(t, c.Heartbeat("g", b, nil, gen+1), kerr.UnknownMemberID)
	if s := h.state("g"); s != Stable {
		t.Fatalf("group %v after the reload, want Stable", s)
	}

	lostUndurable(t, log, 1)
	// b is not in the log's generation: it joins from scratch.
	b, joinB = h.joinNew("g")
	ra = ready(t, c.Join(joinReq("g", a)))
	wantErr(t, ra.Err, nil)
	wantErr(t, ready(t, joinB).Err, nil)
	rs = ready(t, c.Sync(SyncRequest{GroupID: "g", MemberID: a, Generation: ra.Generation,
		Assignments: []Assignment{{MemberID: a, Assignment: []byte("A")}, {MemberID: b, Assignment: []byte("B")}}}))
	wantErr(t, rs.Err, nil)
	if rs.Wait != nil {
		if err := rs.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.ReloadPartition(0); err != nil {
		t.Fatal(err)
	}
	wantErr(t, c.Heartbeat("g", a, nil, ra.Generation), nil)
	wantErr(t, c.Heartbeat("g", b, nil, ra.Generation), nil)
}

// TestRuntimeFailedMemberEpochRecordReverts: a KIP-848 heartbeat whose
// records' fsync fails is answered with the error; after the reload the
// group is the one its log holds (the member that was joining is not in
// it, the other keeps its durable epoch) and carries on once the log is
// healthy.
func TestRuntimeFailedMemberEpochRecordReverts(t *testing.T) {
	topics := fakeTopics{"t": 4}
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: 1}
	c := newRuntimeCoordinatorOver(t, logs, topics)
	h := &consumerHarness{t: t, clock: c.clock.(*fakeClock), c: c, topics: topics}
	log := logs.Partition(0)
	durably := func(r ConsumerHeartbeatResult) ConsumerHeartbeatResult {
		t.Helper()
		wantErr(t, r.Err, nil)
		if r.Wait != nil {
			if err := r.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	a, r := h.join("a", "t")
	durably(r)
	durable := consumerState(c)

	log.Hold(true)
	_, r = h.join("b", "t")
	wantErr(t, r.Err, nil)
	if r.Wait == nil || log.Pending() == 0 {
		t.Fatalf("b's join %+v wrote nothing to wait for", r)
	}
	held := c.group("g", false)
	log.FailSyncs(errDisk)
	if err := r.Wait(context.Background()); !errors.Is(err, errDisk) {
		t.Fatalf("b's join: %v, want %v", err, errDisk)
	}
	if c.group("g", false) == held {
		t.Fatal("the partition was not reloaded after the failed fsync")
	}
	got := consumerState(c)
	if got == nil || got.Epoch != durable.Epoch || len(got.Members) != 1 || got.Members["a"].Epoch != durable.Members["a"].Epoch {
		t.Fatalf("group after the reload %+v, want %+v", got, durable)
	}

	lostUndurable(t, log, log.Pending())
	durably(h.beat(a))
	b, r := h.join("b", "t")
	durably(r)
	for range 4 {
		durably(h.beat(a))
		durably(h.beat(b))
	}
	h.checkExclusive()
	if len(partitionsOf(a.owned))+len(partitionsOf(b.owned)) != 4 || len(partitionsOf(b.owned)) == 0 {
		t.Fatalf("a owns %v, b owns %v", a.owned, b.owned)
	}
	want := consumerState(c)
	if err := c.ReloadPartition(0); err != nil {
		t.Fatal(err)
	}
	if got := consumerState(c); got == nil || got.Epoch != want.Epoch || got.Members["b"].Epoch != want.Members["b"].Epoch {
		t.Fatalf("group after a reload %+v, want %+v", got, want)
	}
}

// gatedOffsets holds back the runtime's wait for durability of a
// partition while the gate is shut, so a test can stop a broker between
// its records becoming durable and its coordinator replaying them.
type gatedOffsets struct {
	memoryOffsets
	gate chan struct{}
	// waiting is told each time a wait reaches the gate.
	waiting chan struct{}
	once    sync.Once
}

func (g *gatedOffsets) Open(p int32) (coordinator.PartitionLog, error) {
	l, err := g.memoryOffsets.Open(p)
	if err != nil {
		return nil, err
	}
	return gatedLog{PartitionLog: l, g: g}, nil
}

func (g *gatedOffsets) open() { g.once.Do(func() { close(g.gate) }) }

type gatedLog struct {
	coordinator.PartitionLog
	g *gatedOffsets
}

func (l gatedLog) WaitDurable(ctx context.Context, offset int64) error {
	select {
	case l.g.waiting <- struct{}{}:
	default:
	}
	select {
	case <-l.g.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return l.PartitionLog.WaitDurable(ctx, offset)
}

// TestRuntimeCrashAfterDurableBeforeReplayLoadsTheCommit: a commit on
// disk that the coordinator had not yet replayed (nor answered) when the
// broker stopped is there once the partition is loaded, by another broker
// and by this one reloading it, exactly once.
func TestRuntimeCrashAfterDurableBeforeReplayLoadsTheCommit(t *testing.T) {
	logs := &gatedOffsets{memoryOffsets: memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: 1},
		gate: make(chan struct{}), waiting: make(chan struct{}, 1)}
	defer logs.open()
	c := newRuntimeCoordinatorOver(t, logs, fakeTopics{"t": 4})
	top, errs, wait := c.CommitOffsets(commit("g", "", -1, 5, 6))
	if top != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("commit: %v %v", top, errs)
	}
	select {
	case <-logs.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the runtime never waited for the commit's durability")
	}
	if logs.Partition(0).Pending() != 0 {
		t.Fatal("the commit is not durable in the log")
	}
	if _, got := c.FetchOffsets("g", nil); len(got) != 0 {
		t.Fatalf("OffsetFetch answered %+v before the commit was replayed", got)
	}

	restarted := newRuntimeCoordinatorOver(t, logs, fakeTopics{"t": 4})
	wantOffsets(t, restarted, "g", 5, 6)

	if err := c.ReloadPartition(0); err != nil {
		t.Fatal(err)
	}
	wantOffsets(t, c, "g", 5, 6)
	logs.open()
	if err := wait(context.Background()); err != nil {
		t.Fatalf("the commit's answer once durable: %v", err)
	}
	wantOffsets(t, c, "g", 5, 6)
	if n := len(logs.Partition(0).Entries()); n != 2 {
		t.Fatalf("%d records in the log, want the commit's 2", n)
	}
}
