package group

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// scheduledSession reports whether the member's session timer is set on
// its partition's shard.
func scheduledSession(t *testing.T, c *Coordinator, memberID string) bool {
	t.Helper()
	o := c.store.(*OffsetsTopic)
	ok, err := coordinator.Read(o.runtime(), PartitionFor("g", o.logs.Partitions()), func(s *offsetsShard) (bool, error) {
		return s.ctx.Scheduled(consumerSessionKey("g", memberID)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestRuntimeConsumerSessionsAreShardTimers: on __consumer_offsets, a
// KIP-848 member's session is a keyed timer of its partition's shard,
// moved by each heartbeat; it expires the member on the runtime's clock
// alone (no Tick, no scan of the groups), and a reload of the partition
// starts the sessions of the members it brings back.
func TestRuntimeConsumerSessionsAreShardTimers(t *testing.T) {
	topics := fakeTopics{"t": 4}
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: 3}
	clock := coordinator.NewManualClock(time.Unix(1_700_000_000, 0))
	c := New(testConfig(), Options{Clock: clock, Store: NewOffsetsStore(logs), Topics: topics})
	if _, err := c.LoadAll(); err != nil {
		t.Fatal(err)
	}
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
	a, r := h.join("a", "t")
	durably(r)
	b, r := h.join("b", "t")
	durably(r)
	if !scheduledSession(t, c, "a") || !scheduledSession(t, c, "b") {
		t.Fatal("the members' sessions are not timers of the shard")
	}
	clock.Advance(session / 2)
	durably(h.beat(a))
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
