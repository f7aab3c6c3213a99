package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// reload is a coordinator loaded from h's records, as after a broker
// restart, on h's clock moved on by gap.
func reload(t *testing.T, h *harness, gap time.Duration) *harness {
	t.Helper()
	halt(h.c)
	h.clock.advance(gap)
	c2 := New(h.c.cfg, Options{Clock: h.clock, Store: &memStore{}})
	if skipped, err := c2.Load(append(replayRecords{}, h.store.recs...)); err != nil || skipped != 0 {
		t.Fatalf("load: skipped %d, err %v", skipped, err)
	}
	return &harness{t: t, clock: h.clock, store: c2.store.(*memStore), c: c2}
}

func TestLoadedClassicMembersCarryOnWithoutRebalance(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 3)
	// The restart takes longer than the session timeout: the timers
	// start again at load.
	h2 := reload(t, h, time.Minute)
	if h2.state("g") != Stable {
		t.Fatalf("state %v", h2.state("g"))
	}
	for _, id := range ids {
		wantErr(t, h2.c.Heartbeat("g", id, nil, gen), nil)
	}
	wantErr(t, h2.c.Heartbeat("g", ids[1], nil, gen-1), kerr.IllegalGeneration)
	wantErr(t, h2.c.Heartbeat("g", "stranger", nil, gen), kerr.UnknownMemberID)

	// SyncGroup again hands out the assignment the leader gave.
	for _, id := range ids {
		s := ready(t, h2.c.Sync(SyncRequest{GroupID: "g", MemberID: id, Generation: gen}))
		if s.Err != nil || string(s.Assignment) != id || s.Protocol == nil || *s.Protocol != "range" {
			t.Fatalf("sync %s: %+v", id, s)
		}
	}
	err, errs, _ := h2.c.CommitOffsets(commit("g", ids[2], gen, 42))
	if err != nil || errs[0] != nil {
		t.Fatalf("commit: %v %v", err, errs)
	}
	// A follower joining again with the same subscription gets the
	// current generation, without a rebalance.
	r := ready(t, h2.c.Join(joinReq("g", ids[1])))
	if r.Err != nil || r.Generation != gen || r.Leader != ids[0] || h2.state("g") != Stable {
		t.Fatalf("join %+v state %v", r, h2.state("g"))
	}

	d := h2.c.Describe([]string{"g"})[0]
	if d.State != "Stable" || len(d.Members) != 3 || d.Members[0].MemberID != ids[0] ||
		d.Members[0].ClientHost != "/127.0.0.1" || string(d.Members[2].Assignment) != ids[2] {
		t.Fatalf("%+v", d)
	}
	// The members stay alive as long as they heartbeat.
	for i := 0; i < 5; i++ {
		h2.advance(5 * time.Second)
		for _, id := range ids {
			wantErr(t, h2.c.Heartbeat("g", id, nil, gen), nil)
		}
	}
	if h2.state("g") != Stable || len(h2.store.recs) != 1 {
		t.Fatalf("state %v, %d records written", h2.state("g"), len(h2.store.recs))
	}
}

func TestLoadedClassicMemberThatDoesNotHeartbeatExpires(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 2)
	h2 := reload(t, h, time.Hour)
	// Only the leader comes back; the session timeout is 10 s.
	for i := 0; i < 3; i++ {
		h2.advance(3 * time.Second)
		wantErr(t, h2.c.Heartbeat("g", ids[0], nil, gen), nil)
	}
	h2.advance(2 * time.Second)
	wantErr(t, h2.c.Heartbeat("g", ids[0], nil, gen), kerr.RebalanceInProgress)
	if h2.state("g") != PreparingRebalance {
		t.Fatalf("state %v", h2.state("g"))
	}
	wantErr(t, h2.c.Heartbeat("g", ids[1], nil, gen), kerr.UnknownMemberID)
	r := ready(t, h2.c.Join(joinReq("g", ids[0])))
	if r.Err != nil || r.Generation != gen+1 || r.Leader != ids[0] || len(r.Members) != 1 {
		t.Fatalf("%+v", r)
	}
}

func TestLoadRestoresStaticMembers(t *testing.T) {
	h := newHarness(t, testConfig())
	ca := h.c.Join(staticReq("g", "", "a"))
	cb := h.c.Join(staticReq("g", "", "b"))
	ra, rb := settle(h, ca), ready(t, cb)
	gen := ra.Generation
	ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: ra.Leader, InstanceID: strp("a"), Generation: gen,
		Assignments: []Assignment{{MemberID: ra.MemberID, Assignment: []byte("A")}, {MemberID: rb.MemberID, Assignment: []byte("B")}}}))

	h2 := reload(t, h, time.Minute)
	wantErr(t, h2.c.Heartbeat("g", ra.MemberID, strp("a"), gen), nil)
	wantErr(t, h2.c.Heartbeat("g", rb.MemberID, strp("b"), gen), nil)
	wantErr(t, h2.c.Heartbeat("g", ra.MemberID, strp("b"), gen), kerr.FencedInstanceID)
	d := h2.c.Describe([]string{"g"})[0]
	if len(d.Members) != 2 || d.Members[1].InstanceID == nil || *d.Members[1].InstanceID != "b" {
		t.Fatalf("%+v", d)
	}

	// b restarts after the broker did: a new id, same assignment, no
	// rebalance; the old id is fenced.
	nb := ready(t, h2.c.Join(staticReq("g", "", "b")))
	if nb.Err != nil || nb.MemberID == rb.MemberID || nb.Generation != gen || h2.state("g") != Stable {
		t.Fatalf("%+v state %v", nb, h2.state("g"))
	}
	s := ready(t, h2.c.Sync(SyncRequest{GroupID: "g", MemberID: nb.MemberID, InstanceID: strp("b"), Generation: gen}))
	if s.Err != nil || string(s.Assignment) != "B" {
		t.Fatalf("%+v", s)
	}
	wantErr(t, h2.c.Heartbeat("g", rb.MemberID, strp("b"), gen), kerr.FencedInstanceID)

	// A static member that stays away expires after its session timeout,
	// as in Kafka; leaving by instance id works on a restored member.
	_, errs := h2.c.Leave("g", []MemberIdentity{{InstanceID: strp("a")}})
	wantErr(t, errs[0], nil)
	if h2.state("g") != PreparingRebalance {
		t.Fatalf("state %v", h2.state("g"))
	}
}

func TestLoadGroupThatEmptiedOrWasDeleted(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 1)
	_, errs := h.c.Leave("g", []MemberIdentity{{MemberID: ids[0]}})
	wantErr(t, errs[0], nil)
	h.advance(time.Minute)
	h.stableGroup("gone", 1)
	gid, _ := h.stableGroup("gone-with-offsets", 1)
	h.c.CommitOffsets(commit("gone-with-offsets", gid[0], 1, 3))
	for _, id := range []string{"gone", "gone-with-offsets"} {
		// A tombstone after a record with members.
		h.store.recs = append(h.store.recs, Record{Key: groupMetadataKey(id)})
	}

	h2 := reload(t, h, time.Minute)
	d := h2.c.Describe([]string{"g"})[0]
	if d.State != "Empty" || len(d.Members) != 0 || d.ProtocolType != "consumer" {
		t.Fatalf("%+v", d)
	}
	wantErr(t, h2.c.Heartbeat("g", ids[0], nil, gen+1), kerr.UnknownMemberID)
	if h2.c.group("gone", false) != nil {
		t.Fatal("deleted group came back")
	}
	if s := h2.state("gone-with-offsets"); s != Empty {
		t.Fatalf("state %v", s)
	}
	wantErr(t, h2.c.Heartbeat("gone-with-offsets", gid[0], nil, 1), kerr.UnknownMemberID)
}

func TestLoadedGroupOverMaxSizeRebalances(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 3)
	h.c.cfg.MaxSize = 2
	h2 := reload(t, h, 0)
	if h2.state("g") != PreparingRebalance {
		t.Fatalf("state %v", h2.state("g"))
	}
	wantErr(t, h2.c.Heartbeat("g", ids[0], nil, gen), kerr.RebalanceInProgress)
}

// FuzzLoadGroupMetadata loads an arbitrary GroupMetadataValue and drives
// the group afterwards: nothing may panic, whatever the record says.
func FuzzLoadGroupMetadata(f *testing.F) {
	h := newHarness(&testing.T{}, testConfig())
	h.stableGroup("g", 2)
	for _, r := range h.store.recs {
		f.Add(r.Value)
	}
	f.Add([]byte{0, 3})
	f.Add([]byte(nil))
	f.Fuzz(func(t *testing.T, value []byte) {
		clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		c := New(testConfig(), Options{Clock: clock})
		c.Load(replayRecords{{Key: groupMetadataKey("g"), Value: value}})
		c.Describe([]string{"g"})
		g := c.group("g", false)
		if g == nil {
			return
		}
		g.mu.Lock()
		ids := append([]string(nil), g.order...)
		gen := g.generation
		g.mu.Unlock()
		for _, id := range ids {
			c.Heartbeat("g", id, nil, gen)
			c.Sync(SyncRequest{GroupID: "g", MemberID: id, Generation: gen})
			c.Join(joinReq("g", id))
		}
		c.Join(staticReq("g", "", "i"))
		for i := 0; i < 4; i++ {
			clock.advance(time.Minute)
			c.Tick()
		}
	})
}
