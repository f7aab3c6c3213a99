package group

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// scheduled reports whether group g's timer is set on its partition's
// shard.
func scheduled(t *testing.T, c *Coordinator, timer groupTimer) bool {
	t.Helper()
	o := c.store.(*OffsetsTopic)
	ok, err := coordinator.Read(o.runtime(), PartitionFor("g", o.logs.Partitions()), func(s *offsetsShard) (bool, error) {
		return s.ctx.Scheduled(timer.key("g")), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func scheduledSession(t *testing.T, c *Coordinator, memberID string) bool {
	t.Helper()
	return scheduled(t, c, groupTimer{sessionTimer, memberID})
}

// noLocalTimer fails if a deadline of group g went to the coordinator's
// local shard rather than to its partition's.
func noLocalTimer(t *testing.T, c *Coordinator, timers ...groupTimer) {
	t.Helper()
	for _, timer := range timers {
		local, err := coordinator.Read(c.local, 0, func(s *localShard) (bool, error) { return s.ctx.Scheduled(timer.key("g")), nil })
		if err != nil || local {
			t.Fatalf("%s is a timer of the local shard (%v)", timer.key("g"), err)
		}
	}
}

// atRest waits until every partition's writes are durable and replayed,
// and the calls out of its shard have returned.
func atRest(t *testing.T, c *Coordinator) {
	t.Helper()
	rt := c.store.(*OffsetsTopic).runtime()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range rt.Partitions() {
		for rt.InFlight(p) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("partition %d still has writes in flight", p)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// newManualRuntimeCoordinator is a coordinator on __consumer_offsets in
// memory whose clock, and the runtime's, only the test moves.
func newManualRuntimeCoordinator(t *testing.T, partitions int32, topics fakeTopics) (*Coordinator, *coordinator.ManualClock, memoryOffsets) {
	t.Helper()
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: partitions}
	clock := coordinator.NewManualClock(time.Unix(1_700_000_000, 0))
	c := New(testConfig(), Options{Clock: clock, Store: NewOffsetsStore(logs), Topics: topics})
	if _, err := c.LoadAll(); err != nil {
		t.Fatal(err)
	}
	return c, clock, logs
}

// TestRuntimeConsumerSessionsAreShardTimers: on __consumer_offsets, a
// KIP-848 member's session is a keyed timer of its partition's shard,
// moved by each heartbeat; it expires the member on the runtime's clock
// alone (no Tick, no scan of the groups), and a reload of the partition
// starts the sessions of the members it brings back.
func TestRuntimeConsumerSessionsAreShardTimers(t *testing.T) {
	topics := fakeTopics{"t": 4}
	c, clock, logs := newManualRuntimeCoordinator(t, 3, topics)
	h := &consumerHarness{t: t, c: c, topics: topics}
	durably := func(r ConsumerHeartbeatResult) {
		t.Helper()
		wantErr(t, r.Err, nil)
		if r.Wait != nil {
			if err := r.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	members := func() int {
		t.Helper()
		st := consumerState(c)
		if st == nil {
			return 0
		}
		return len(st.Members)
	}
	session := c.consumerConfig("g").SessionTimeout
	gone, r := h.join("gone", "t")
	durably(r)
	gone.epoch = -1
	durably(h.beat(gone))
	if scheduledSession(t, c, "gone") {
		t.Fatal("the session timer of a member that left is still set")
	}
	a, r := h.join("a", "t")
	durably(r)
	b, r := h.join("b", "t")
	durably(r)
	if !scheduledSession(t, c, "a") || !scheduledSession(t, c, "b") {
		t.Fatal("the members' sessions are not timers of the shard")
	}
	noLocalTimer(t, c, groupTimer{sessionTimer, "a"}, groupTimer{sessionTimer, "b"})
	clock.Advance(session / 2)
	durably(h.beat(a)) // a is to give b partitions
	if !scheduled(t, c, groupTimer{revokeTimer, "a"}) {
		t.Fatal("a's revocation is not a timer of the shard")
	}
	noLocalTimer(t, c, groupTimer{revokeTimer, "a"})
	clock.Advance(session/2 + time.Millisecond) // b's session lapsed, not a's
	if st := consumerState(c); st == nil || len(st.Members) != 1 || st.Members["a"].Epoch == 0 {
		t.Fatalf("group %+v after b's session lapsed, want a alone", st)
	}
	if scheduledSession(t, c, "b") {
		t.Fatal("b's session timer is still set after it fired")
	}
	wantErr(t, h.beat(b).Err, kerr.UnknownMemberID)

	if err := c.ReloadPartition(PartitionFor("g", logs.partitions)); err != nil {
		t.Fatal(err)
	}
	if members() != 1 || !scheduledSession(t, c, "a") {
		t.Fatalf("after the reload: %d members, a's session set: %v", members(), scheduledSession(t, c, "a"))
	}
	clock.Advance(session - time.Millisecond)
	if members() != 1 {
		t.Fatal("a expired before its session, counted from the reload, lapsed")
	}
	clock.Advance(time.Millisecond)
	if members() != 0 {
		t.Fatalf("a is still in the group a session after the reload: %+v", consumerState(c))
	}
}

// TestRuntimeClassicTimersAreShardTimers: on __consumer_offsets, a
// classic group's deadlines are keyed timers of its partition's shard (a
// pending member id's, each member's heartbeat, the join phase's and the
// sync phase's), which act on the runtime's clock alone, without Tick.
func TestRuntimeClassicTimersAreShardTimers(t *testing.T) {
	c, clock, _ := newManualRuntimeCoordinator(t, 3, nil)
	state := func() State {
		t.Helper()
		g := c.group("g", false)
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.state
	}

	// A member id handed out with MEMBER_ID_REQUIRED lapses after the
	// session timeout (10s) unless it joins.
	p := ready(t, c.Join(joinReq("g", ""))).MemberID
	if !scheduled(t, c, groupTimer{heartbeatTimer, p}) {
		t.Fatal("the pending member id's timer is not the shard's")
	}
	clock.Advance(10 * time.Second)
	if g := c.group("g", false); g.isPending(p) {
		t.Fatal("the pending member id did not lapse")
	}

	// The initial join waits its delay (3s) on the shard's join timer.
	a := ready(t, c.Join(joinReq("g", ""))).MemberID
	ja := c.Join(joinReq("g", a))
	if !scheduled(t, c, groupTimer{kind: joinTimer}) {
		t.Fatal("the join phase's timer is not the shard's")
	}
	clock.Advance(3*time.Second - time.Millisecond)
	waiting(t, ja)
	clock.Advance(time.Millisecond)
	ra := ready(t, ja)
	wantErr(t, ra.Err, nil)
	if !scheduled(t, c, groupTimer{kind: syncTimer}) {
		t.Fatal("the sync phase's timer is not the shard's")
	}
	wantErr(t, ready(t, c.Sync(SyncRequest{GroupID: "g", MemberID: a, Generation: ra.Generation,
		Assignments: []Assignment{{MemberID: a, Assignment: []byte("a")}}})).Err, nil)
	noLocalTimer(t, c, groupTimer{heartbeatTimer, a}, groupTimer{kind: joinTimer}, groupTimer{kind: syncTimer})

	// Heartbeats move the member's timer; 10s without one, it is gone.
	clock.Advance(6 * time.Second)
	wantErr(t, c.Heartbeat("g", a, nil, ra.Generation), nil)
	clock.Advance(6 * time.Second)
	if state() != Stable {
		t.Fatalf("state %v 6s after a heartbeat", state())
	}
	clock.Advance(4 * time.Second)
	if state() != Empty {
		t.Fatalf("state %v 10s after the last heartbeat, want Empty", state())
	}
	wantErr(t, c.Heartbeat("g", a, nil, ra.Generation), kerr.UnknownMemberID)

	// A member that joined but never syncs is dropped at the sync
	// timeout (the rebalance timeout, 30s), heartbeats or not.
	b := ready(t, c.Join(joinReq("g", ""))).MemberID
	jb := c.Join(joinReq("g", b))
	clock.Advance(3 * time.Second)
	rb := ready(t, jb)
	wantErr(t, rb.Err, nil)
	for range 5 {
		clock.Advance(5 * time.Second)
		wantErr(t, c.Heartbeat("g", b, nil, rb.Generation), nil)
	}
	clock.Advance(5 * time.Second)
	wantErr(t, c.Heartbeat("g", b, nil, rb.Generation), kerr.UnknownMemberID)
	if scheduled(t, c, groupTimer{heartbeatTimer, b}) {
		t.Fatal("the removed member's heartbeat timer is still set")
	}
}

// TestRuntimeOffsetExpiryIsAShardTimer: on __consumer_offsets each
// shard expires its own groups' offsets on a timer, every
// offsets.retention.check.interval.ms from its load, as Kafka's shard
// schedules its cleanup; no Tick runs it, and a reload starts it again.
func TestRuntimeOffsetExpiryIsAShardTimer(t *testing.T) {
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: 3}
	clock := coordinator.NewManualClock(time.Unix(1_700_000_000, 0))
	c := New(expiryConfig(), Options{Clock: clock, Store: NewOffsetsStore(logs)})
	if _, err := c.LoadAll(); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"a", "b"} {
		_, _, wait := c.CommitOffsets(commit(g, "", -1, 1))
		if err := wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(30 * time.Minute)
	_, _, wait := c.CommitOffsets(commit("b", "", -1, 2)) // b's offset is younger
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.ReloadPartition(PartitionFor("a", logs.partitions)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30*time.Minute + time.Minute) // a's commit is an hour old at the next check
	atRest(t, c)
	wantOffsets(t, c, "a", -1)
	wantOffsets(t, c, "b", 2)
	clock.Advance(30 * time.Minute)
	atRest(t, c)
	wantOffsets(t, c, "b", -1)
}

// TestTimerWhoseWriteFailsTriesAgain: a KIP-848 member whose session
// lapsed while the group's records cannot be written stays until the
// write succeeds; its timer tries again shortly after each failure rather
// than never again.
func TestTimerWhoseWriteFailsTriesAgain(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 4})
	a, _ := h.join("a", "t")
	b, _ := h.join("b", "t")
	h.beat(a)
	h.beat(b)
	session := h.c.consumerConfig("g").SessionTimeout
	h.clock.advance(session / 2)
	h.beat(a)
	store.mu.Lock()
	store.fail = errors.New("disk gone")
	store.mu.Unlock()
	h.clock.advance(session/2 + time.Millisecond) // b's session lapsed; its removal is not written
	if st := consumerState(h.c); st == nil || len(st.Members) != 2 {
		t.Fatalf("b left the group though its removal was not written: %+v", st)
	}
	h.clock.advance(3 * retryDue)
	store.mu.Lock()
	store.fail = nil
	store.mu.Unlock()
	h.clock.advance(retryDue)
	if st := consumerState(h.c); st == nil || len(st.Members) != 1 || st.Members["a"].Epoch == 0 {
		t.Fatalf("group %+v once the log takes writes again, want a alone", st)
	}
}
