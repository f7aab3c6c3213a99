package group

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
	"github.com/twmb/franz-go/pkg/kerr"
)

// BenchmarkHeartbeatOneShard: 100 classic members, 10 groups of 10, all
// in one __consumer_offsets partition on the runtime, heartbeat
// concurrently; each heartbeat sets its member's session timer again on
// the shard, under the shard's lock.
func BenchmarkHeartbeatOneShard(b *testing.B) {
	const groups, perGroup = 10, 10
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	logs := memoryOffsets{MemoryLogs: coordinator.NewMemoryLogs(), partitions: 1}
	cfg := testConfig()
	cfg.InitialRebalanceDelay = 0
	c := New(cfg, Options{Clock: clock, Store: NewOffsetsStore(logs), Logger: slog.New(slog.DiscardHandler)})
	if _, err := c.LoadAll(); err != nil {
		b.Fatal(err)
	}
	type beat struct {
		group, member string
		generation    int32
	}
	var beats []beat
	for g := range groups {
		id := fmt.Sprintf("group-%d", g)
		members, gen := benchStableGroup(b, c, clock, id, perGroup)
		for _, m := range members {
			beats = append(beats, beat{id, m, gen})
		}
	}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m := beats[next.Add(1)%int64(len(beats))]
			if err := c.Heartbeat(m.group, m.member, nil, m.generation); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchStableGroup forms a Stable group of n members through the
// runtime, waiting for each answer.
func benchStableGroup(b *testing.B, c *Coordinator, clock *fakeClock, group string, n int) ([]string, int32) {
	b.Helper()
	recv := func(ch <-chan JoinResult) JoinResult {
		deadline := time.After(10 * time.Second)
		for {
			select {
			case r := <-ch:
				return r
			case <-time.After(10 * time.Millisecond):
				clock.advance(time.Millisecond) // the join's delay, if any
			case <-deadline:
				b.Fatal("no join answer")
			}
		}
	}
	ids := make([]string, n)
	chans := make([]<-chan JoinResult, n)
	for i := range ids {
		r := recv(c.Join(joinReq(group, "")))
		if r.Err != kerr.MemberIDRequired {
			b.Fatalf("join: %v", r.Err)
		}
		ids[i], chans[i] = r.MemberID, c.Join(joinReq(group, r.MemberID))
	}
	var gen int32
	var leader string
	for _, ch := range chans {
		r := recv(ch)
		if r.Err != nil {
			b.Fatalf("join: %v", r.Err)
		}
		gen, leader = r.Generation, r.Leader
	}
	var assigns []Assignment
	for _, id := range ids {
		assigns = append(assigns, Assignment{MemberID: id, Assignment: []byte(id)})
	}
	syncs := []<-chan SyncResult{c.Sync(SyncRequest{GroupID: group, MemberID: leader, Generation: gen, Assignments: assigns})}
	for _, id := range ids {
		if id != leader {
			syncs = append(syncs, c.Sync(SyncRequest{GroupID: group, MemberID: id, Generation: gen}))
		}
	}
	for _, ch := range syncs {
		select {
		case r := <-ch:
			if r.Err != nil {
				b.Fatalf("sync: %v", r.Err)
			}
		case <-time.After(10 * time.Second):
			b.Fatal("no sync answer")
		}
	}
	return ids, gen
}
