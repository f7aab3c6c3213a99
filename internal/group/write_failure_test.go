package group

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

var errNotOpen = errors.New("group: __consumer_offsets-0 is not open")

// A consumer-protocol heartbeat whose records cannot be written fails
// with COORDINATOR_NOT_AVAILABLE rather than handing out an assignment
// that is not in the log; the retry writes it and succeeds.
func TestConsumerHeartbeatFailsWhenItsRecordsAreNotWritten(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 4})
	store.fail = errNotOpen
	_, r := h.join("a", "t")
	wantErr(t, r.Err, kerr.CoordinatorNotAvailable)
	if r.Assignment != nil || len(store.recs) != 0 {
		t.Fatalf("%+v, %d records", r, len(store.recs))
	}
	store.fail = nil
	cl, r := h.join("a", "t")
	wantErr(t, r.Err, nil)
	if r.MemberEpoch != 2 || len(partitionsOf(cl.owned)) != 4 {
		t.Fatalf("%+v", r)
	}
	c2 := h.restart(store)
	if got := consumerState(c2).Members["a"]; got.Epoch != 2 || len(partitionsOf(got.Assigned)) != 4 {
		t.Fatalf("restored %+v", got)
	}

	// A heartbeat that changes nothing writes nothing and cannot fail.
	store.fail = errNotOpen
	wantErr(t, h.beat(cl).Err, nil)
	// One that would bump the epoch fails, and the member carries on
	// once the log takes the records again.
	r = h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: cl.epoch,
		SubscribedTopics: []string{"t", "u"}, Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: h.topics})
	wantErr(t, r.Err, kerr.CoordinatorNotAvailable)
	store.fail = nil
	r = h.beat(cl)
	wantErr(t, r.Err, nil)
	if w, g := consumerState(h.c), consumerState(h.restart(store)); w.Epoch != g.Epoch || w.Members["a"].Epoch != g.Members["a"].Epoch {
		t.Fatalf("restored %+v, want %+v", g, w)
	}
	// A leave that is not written fails too.
	store.fail = errNotOpen
	r = h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: -1, Topics: h.topics})
	wantErr(t, r.Err, kerr.CoordinatorNotAvailable)
}

// A static member rejoining under a new id in a stable group is written
// before it is answered; when the write fails the old id keeps its place
// and the new one is told COORDINATOR_NOT_AVAILABLE, as Kafka reverts the
// replacement.
func TestStaticMemberReplacementNotWrittenIsReverted(t *testing.T) {
	h := newHarness(t, testConfig())
	ca := h.c.Join(staticReq("g", "", "a"))
	cb := h.c.Join(staticReq("g", "", "b"))
	ra, rb := settle(h, ca), ready(t, cb)
	gen := ra.Generation
	ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: ra.Leader, InstanceID: strp("a"), Generation: gen,
		Assignments: []Assignment{{MemberID: ra.MemberID, Assignment: []byte("A")}, {MemberID: rb.MemberID, Assignment: []byte("B")}}}))

	h.store.fail = errNotOpen
	nb := ready(t, h.c.Join(staticReq("g", "", "b")))
	wantErr(t, nb.Err, kerr.CoordinatorNotAvailable)
	wantErr(t, h.c.Heartbeat("g", rb.MemberID, strp("b"), gen), nil)
	wantErr(t, h.c.Heartbeat("g", nb.MemberID, strp("b"), gen), kerr.FencedInstanceID)
	if h.state("g") != Stable {
		t.Fatalf("state %v", h.state("g"))
	}
	h.store.fail = nil
	nb = ready(t, h.c.Join(staticReq("g", "", "b")))
	wantErr(t, nb.Err, nil)
	s := ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: nb.MemberID, InstanceID: strp("b"), Generation: gen}))
	if s.Err != nil || string(s.Assignment) != "B" {
		t.Fatalf("%+v", s)
	}
}
