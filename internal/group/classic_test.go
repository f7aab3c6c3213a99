package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestJoinRequiresMemberIDThenWaitsInitialDelay(t *testing.T) {
	h := newHarness(t, testConfig())
	r := ready(t, h.c.Join(joinReq("g", "")))
	wantErr(t, r.Err, kerr.MemberIDRequired)
	if r.MemberID == "" {
		t.Fatal("no member id given with MEMBER_ID_REQUIRED")
	}
	ch := h.c.Join(joinReq("g", r.MemberID))
	waiting(t, ch)
	h.advance(2 * time.Second)
	waiting(t, ch)
	h.advance(time.Second)
	got := ready(t, ch)
	wantErr(t, got.Err, nil)
	if got.Generation != 1 || got.Leader != r.MemberID || len(got.Members) != 1 || *got.Protocol != "range" {
		t.Fatalf("join result %+v", got)
	}
	if h.state("g") != CompletingRebalance {
		t.Fatalf("state %v", h.state("g"))
	}
}

func TestJoinWithoutRequiringID(t *testing.T) {
	h := newHarness(t, testConfig())
	req := joinReq("g", "")
	req.RequireKnownMemberID = false // JoinGroup v0-v3
	ch := h.c.Join(req)
	h.advance(3 * time.Second)
	if r := ready(t, ch); r.Err != nil || r.MemberID == "" {
		t.Fatalf("%+v", r)
	}
}

func TestInitialDelayExtendsForNewMembersUpToRebalanceTimeout(t *testing.T) {
	h := newHarness(t, testConfig())
	_, a := h.joinNew("g")
	h.advance(2 * time.Second)
	_, b := h.joinNew("g")
	h.advance(time.Second) // first delay ends; a member came: wait again
	waiting(t, a)
	h.advance(3 * time.Second)
	ra, rb := ready(t, a), ready(t, b)
	if ra.Generation != 1 || rb.Generation != 1 || ra.Leader != rb.Leader {
		t.Fatalf("%+v %+v", ra, rb)
	}
	if len(ra.Members)+len(rb.Members) != 2 {
		t.Fatal("only the leader gets the member list")
	}
}

func TestSyncDeliversLeaderAssignment(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 3)
	if h.state("g") != Stable || gen != 1 {
		t.Fatalf("state %v gen %d", h.state("g"), gen)
	}
	for _, id := range ids {
		r := ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: id, Generation: gen}))
		if r.Err != nil || string(r.Assignment) != id {
			t.Fatalf("member %s: %+v", id, r)
		}
	}
	// The group metadata record was written with the assignment.
	found := false
	for _, rec := range h.store.recs {
		d, err := decodeRecord(rec.Key, rec.Value)
		if err == nil && d.kind == keyGroupMetadata && d.meta != nil && d.meta.Generation == gen && len(d.meta.Members) == 3 {
			found = true
		}
	}
	if !found {
		t.Fatal("no GroupMetadataValue for the generation")
	}
}

func TestSyncErrors(t *testing.T) {
	h := newHarness(t, testConfig())
	wantErr(t, ready(t, h.c.Sync(SyncRequest{GroupID: "none", MemberID: "x"})).Err, kerr.UnknownMemberID)
	ids, gen := h.stableGroup("g", 1)
	wantErr(t, ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: "x", Generation: gen})).Err, kerr.UnknownMemberID)
	wantErr(t, ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: ids[0], Generation: gen + 1})).Err, kerr.IllegalGeneration)
	other := "roundrobin"
	wantErr(t, ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: ids[0], Generation: gen, Protocol: &other})).Err, kerr.InconsistentGroupProtocol)
}

func TestHeartbeatErrors(t *testing.T) {
	h := newHarness(t, testConfig())
	wantErr(t, h.c.Heartbeat("none", "m", nil, 1), kerr.UnknownMemberID)
	ids, gen := h.stableGroup("g", 2)
	wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen), nil)
	wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen+1), kerr.IllegalGeneration)
	wantErr(t, h.c.Heartbeat("g", "stranger", nil, gen), kerr.UnknownMemberID)
	// A member rejoining with a new subscription starts a rebalance.
	req := joinReq("g", ids[1])
	req.Protocols = consumerProtocols("t", "u")
	ch := h.c.Join(req)
	waiting(t, ch)
	wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen), kerr.RebalanceInProgress)
	ch0 := h.c.Join(joinReq("g", ids[0]))
	r0, r1 := ready(t, ch0), ready(t, ch)
	if r0.Generation != gen+1 || r1.Generation != gen+1 {
		t.Fatalf("%+v %+v", r0, r1)
	}
	// CompletingRebalance: heartbeats are fine.
	wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen+1), nil)
}

func TestSessionTimeoutExpiresMember(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 2)
	for i := 0; i < 2; i++ {
		h.advance(4 * time.Second)
		wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen), nil)
	}
	h.advance(4 * time.Second)
	// ids[1] never heartbeat: gone after 10s.
	if h.state("g") != PreparingRebalance {
		t.Fatalf("state %v", h.state("g"))
	}
	wantErr(t, h.c.Heartbeat("g", ids[1], nil, gen), kerr.UnknownMemberID)
	wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen), kerr.RebalanceInProgress)
	r := ready(t, h.c.Join(joinReq("g", ids[0]))) // everyone left has joined
	if r.Generation != gen+1 || len(r.Members) != 1 {
		t.Fatalf("%+v", r)
	}
}

func TestRebalanceTimeoutDropsMembersThatDoNotRejoin(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 2)
	ch := h.c.Join(joinReq("g", ids[0])) // leader rejoins: rebalance
	for i := 0; i < 7; i++ {
		h.advance(4 * time.Second)
		// ids[1] heartbeats but never rejoins.
		h.c.Heartbeat("g", ids[1], nil, gen)
		if i < 7 && i*4 < 28 {
			waiting(t, ch)
		}
	}
	h.advance(4 * time.Second) // 32s > rebalance timeout 30s
	r := ready(t, ch)
	if r.Err != nil || r.Generation != gen+1 || len(r.Members) != 1 {
		t.Fatalf("%+v", r)
	}
	wantErr(t, h.c.Heartbeat("g", ids[1], nil, gen), kerr.UnknownMemberID)
}

func TestSyncTimeoutDropsMembersThatDoNotSync(t *testing.T) {
	h := newHarness(t, testConfig())
	a, ja := h.joinNew("g")
	b, jb := h.joinNew("g")
	ra, _ := settle(h, ja), ready(t, jb)
	leader, follower := ra.Leader, a
	if follower == leader {
		follower = b
	}
	// Only the follower syncs; its heartbeats keep it alive.
	sc := h.c.Sync(SyncRequest{GroupID: "g", MemberID: follower, Generation: ra.Generation})
	for i := 0; i < 8; i++ {
		h.advance(4 * time.Second)
		h.c.Heartbeat("g", leader, nil, ra.Generation)
	}
	wantErr(t, ready(t, sc).Err, kerr.RebalanceInProgress)
	wantErr(t, h.c.Heartbeat("g", leader, nil, ra.Generation), kerr.UnknownMemberID)
}

func TestGroupMaxSize(t *testing.T) {
	cfg := testConfig()
	cfg.MaxSize = 2
	h := newHarness(t, cfg)
	h.stableGroup("g", 2)
	wantErr(t, ready(t, h.c.Join(joinReq("g", ""))).Err, kerr.GroupMaxSizeReached)
}

func TestJoinValidation(t *testing.T) {
	h := newHarness(t, testConfig())
	req := joinReq("", "")
	wantErr(t, ready(t, h.c.Join(req)).Err, kerr.InvalidGroupID)
	req = joinReq("g", "")
	req.SessionTimeout = time.Second
	wantErr(t, ready(t, h.c.Join(req)).Err, kerr.InvalidSessionTimeout)
	wantErr(t, ready(t, h.c.Join(joinReq("nope", "someone"))).Err, kerr.UnknownMemberID)
	h.stableGroup("g", 1)
	req = joinReq("g", "")
	req.ProtocolType = "connect"
	wantErr(t, ready(t, h.c.Join(req)).Err, kerr.InconsistentGroupProtocol)
	req = joinReq("g", "")
	req.Protocols = []Protocol{{Name: "sticky"}}
	wantErr(t, ready(t, h.c.Join(req)).Err, kerr.InconsistentGroupProtocol)
}

func TestLeaveGroupBatched(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 3)
	top, errs := h.c.Leave("g", []MemberIdentity{{MemberID: ids[1]}, {MemberID: "ghost"}, {MemberID: ids[2]}})
	wantErr(t, top, nil)
	if errs[0] != nil || errs[1] != kerr.UnknownMemberID || errs[2] != nil {
		t.Fatalf("%v", errs)
	}
	wantErr(t, h.c.Heartbeat("g", ids[0], nil, gen), kerr.RebalanceInProgress)
	r := ready(t, h.c.Join(joinReq("g", ids[0])))
	if len(r.Members) != 1 {
		t.Fatalf("%+v", r)
	}
	// An unknown group: each member is unknown, the request itself is fine (Kafka 4.4).
	top, errs = h.c.Leave("none", []MemberIdentity{{MemberID: "x"}})
	wantErr(t, top, nil)
	if len(errs) != 1 || errs[0] != kerr.UnknownMemberID {
		t.Fatalf("unknown group: %v", errs)
	}
	// The last member leaving empties the group, which bumps the generation.
	h.c.Leave("g", []MemberIdentity{{MemberID: ids[0]}})
	if h.state("g") != PreparingRebalance && h.state("g") != Empty {
		t.Fatalf("state %v", h.state("g"))
	}
	h.advance(time.Second)
	if h.state("g") != Empty {
		t.Fatalf("state %v", h.state("g"))
	}
}

func TestPendingMemberExpiresAndLeaves(t *testing.T) {
	h := newHarness(t, testConfig())
	r := ready(t, h.c.Join(joinReq("g", "")))
	h.advance(11 * time.Second)
	wantErr(t, ready(t, h.c.Join(joinReq("g", r.MemberID))).Err, kerr.UnknownMemberID)
	r = ready(t, h.c.Join(joinReq("g", "")))
	_, errs := h.c.Leave("g", []MemberIdentity{{MemberID: r.MemberID}})
	wantErr(t, errs[0], nil)
}

func staticReq(group, member, instance string) JoinRequest {
	req := joinReq(group, member)
	req.InstanceID = &instance
	return req
}

func TestStaticMemberRestartKeepsAssignmentAndFencesOldID(t *testing.T) {
	h := newHarness(t, testConfig())
	ca := h.c.Join(staticReq("g", "", "a"))
	cb := h.c.Join(staticReq("g", "", "b"))
	ra, rb := settle(h, ca), ready(t, cb)
	gen := ra.Generation
	leader := ra.Leader
	ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: leader, InstanceID: strp("a"), Generation: gen,
		Assignments: []Assignment{{MemberID: ra.MemberID, Assignment: []byte("A")}, {MemberID: rb.MemberID, Assignment: []byte("B")}}}))
	ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: rb.MemberID, InstanceID: strp("b"), Generation: gen}))

	// b restarts: a new member id, no rebalance, same assignment.
	nb := ready(t, h.c.Join(staticReq("g", "", "b")))
	wantErr(t, nb.Err, nil)
	if nb.MemberID == rb.MemberID || nb.Generation != gen || h.state("g") != Stable {
		t.Fatalf("%+v state %v", nb, h.state("g"))
	}
	s := ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: nb.MemberID, InstanceID: strp("b"), Generation: gen}))
	if string(s.Assignment) != "B" {
		t.Fatalf("assignment %q", s.Assignment)
	}
	wantErr(t, h.c.Heartbeat("g", rb.MemberID, strp("b"), gen), kerr.FencedInstanceID)
	wantErr(t, ready(t, h.c.Join(staticReq("g", rb.MemberID, "b"))).Err, kerr.FencedInstanceID)
	wantErr(t, h.c.Heartbeat("g", nb.MemberID, strp("b"), gen), nil)

	// Leaving by instance id.
	_, errs := h.c.Leave("g", []MemberIdentity{{InstanceID: strp("b")}, {InstanceID: strp("zzz")}})
	if errs[0] != nil || errs[1] != kerr.UnknownMemberID {
		t.Fatalf("%v", errs)
	}
}

func TestStaticMemberSurvivesRebalanceWithoutRejoining(t *testing.T) {
	h := newHarness(t, testConfig())
	ca := h.c.Join(staticReq("g", "", "a"))
	cb := h.c.Join(staticReq("g", "", "b"))
	ra, rb := settle(h, ca), ready(t, cb)
	h.c.Sync(SyncRequest{GroupID: "g", MemberID: ra.Leader, Generation: ra.Generation, InstanceID: strp("a")})
	_ = rb
	// a rejoins with a new subscription; b does not rejoin in time but is
	// static: it stays in the group.
	req := staticReq("g", ra.MemberID, "a")
	req.Protocols = consumerProtocols("x")
	ch := h.c.Join(req)
	for i := 0; i < 8; i++ {
		h.advance(4 * time.Second)
		h.c.Heartbeat("g", rb.MemberID, strp("b"), ra.Generation)
	}
	r := ready(t, ch)
	if r.Err != nil || len(r.Members) != 2 {
		t.Fatalf("%+v", r)
	}
}

func strp(s string) *string { return &s }

// TestSyncAnswerStartsTheSessionAgain: a member's session restarts when
// its SyncGroup is answered, as Kafka's propagateAssignment reschedules
// the member's heartbeat, so members that waited for a slow leader are
// not expired for the wait, and the session then runs from the answer.
func TestSyncAnswerStartsTheSessionAgain(t *testing.T) {
	h := newHarness(t, testConfig())
	a, ja := h.joinNew("g")
	b, jb := h.joinNew("g")
	ra, _ := settle(h, ja), ready(t, jb) // sessions (10s) start here
	leader, follower := ra.Leader, a
	if follower == leader {
		follower = b
	}
	h.advance(time.Second)
	sc := h.c.Sync(SyncRequest{GroupID: "g", MemberID: follower, Generation: ra.Generation})
	h.advance(7 * time.Second)
	assigns := []Assignment{{MemberID: leader, Assignment: []byte("l")}, {MemberID: follower, Assignment: []byte("f")}}
	wantErr(t, ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: leader, Generation: ra.Generation, Assignments: assigns})).Err, nil)
	wantErr(t, ready(t, sc).Err, nil)
	h.advance(4 * time.Second) // 12s after the join, 4s after the answers
	if s := h.state("g"); s != Stable {
		t.Fatalf("state %v 4s after the assignment, want Stable: the session ran from the join", s)
	}
	for _, id := range []string{leader, follower} {
		wantErr(t, h.c.Heartbeat("g", id, nil, ra.Generation), nil)
	}
	h.advance(11 * time.Second) // past the sessions the heartbeats started
	wantErr(t, h.c.Heartbeat("g", follower, nil, ra.Generation), kerr.UnknownMemberID)
}

// TestDescribeInARebalanceShowsTheAssignmentsHeld: a classic group
// joined again (its leader, or a client re-running its join with its
// member id) is described in PreparingRebalance and CompletingRebalance
// with each member's assignment of the generation before, without
// metadata, until the leader's SyncGroup replaces them, as Kafka 4.4's
// describeNoMetadata does; a member new to the rebalance has none.
func TestDescribeInARebalanceShowsTheAssignmentsHeld(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 2)
	described := func(state string) Description {
		t.Helper()
		d := h.c.Describe([]string{"g"})[0]
		if d.State != state || d.Protocol != "" && state != "Stable" {
			t.Fatalf("described %s protocol %q, want %s", d.State, d.Protocol, state)
		}
		return d
	}
	held := func(d Description, id string) string {
		t.Helper()
		for _, m := range d.Members {
			if m.MemberID == id {
				if len(m.Metadata) != 0 && d.State != "Stable" {
					t.Fatalf("member %s described with its metadata in %s", id, d.State)
				}
				return string(m.Assignment)
			}
		}
		t.Fatalf("member %s not described", id)
		return ""
	}
	jl := h.c.Join(joinReq("g", ids[0])) // the leader joins again
	d := described("PreparingRebalance")
	if held(d, ids[0]) != ids[0] || held(d, ids[1]) != ids[1] {
		t.Fatalf("PreparingRebalance described %+v, want the assignments of generation %d", d.Members, gen)
	}
	jf := h.c.Join(joinReq("g", ids[1]))
	rl := ready(t, jl)
	ready(t, jf)
	d = described("CompletingRebalance")
	if held(d, ids[0]) != ids[0] || held(d, ids[1]) != ids[1] {
		t.Fatalf("CompletingRebalance described %+v, want the assignments of generation %d", d.Members, gen)
	}
	wantErr(t, ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: ids[0], Generation: rl.Generation,
		Assignments: []Assignment{{MemberID: ids[0], Assignment: []byte("new")}}})).Err, nil)
	d = described("Stable")
	if held(d, ids[0]) != "new" || held(d, ids[1]) != "" {
		t.Fatalf("Stable described %+v, want the leader's new assignment and none for the follower", d.Members)
	}
	// A new member has no assignment in the rebalance it causes.
	n, _ := h.joinNew("g")
	d = described("PreparingRebalance")
	if held(d, n) != "" || held(d, ids[0]) != "new" {
		t.Fatalf("PreparingRebalance described %+v", d.Members)
	}
}
