package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// A group's timer firing locks that group only: Tick ends while another
// group's lock is held, and expires the due group's member.
func TestTickLocksOnlyTheGroupWhoseTimerIsDue(t *testing.T) {
	h := newHarness(t, testConfig())
	idsA, genA := h.stableGroup("a", 1)
	h.advance(5 * time.Second)
	idsB, genB := h.stableGroup("b", 1)
	// a's member has 5 s of its 10 s session left, b's 10 s.
	b := h.c.group("b", false)
	b.mu.Lock()
	done := make(chan struct{})
	go func() {
		h.advance(6 * time.Second)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.mu.Unlock()
		t.Fatal("Tick waited on the lock of a group with no timer due")
	}
	b.mu.Unlock()
	wantErr(t, h.c.Heartbeat("a", idsA[0], nil, genA), kerr.UnknownMemberID)
	wantErr(t, h.c.Heartbeat("b", idsB[0], nil, genB), nil)
}

// The timers keep one entry per key, fire in deadline order, and arm
// only brings a timer forward.
func TestTimersKeyed(t *testing.T) {
	ts := newTimers()
	t0 := time.Unix(1_700_000_000, 0)
	ts.arm("x", t0.Add(3*time.Second))
	ts.arm("y", t0.Add(2*time.Second))
	ts.arm("x", t0.Add(5*time.Second)) // later: no change
	ts.arm("z", t0.Add(4*time.Second))
	ts.arm("z", t0.Add(time.Second)) // earlier: moves
	ts.set("y", t0.Add(6*time.Second))
	ts.cancel("nobody")
	if at, ok := ts.next(); !ok || !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("next %v %v", at, ok)
	}
	if got := ts.due(t0.Add(3 * time.Second)); len(got) != 2 || got[0] != "z" || got[1] != "x" {
		t.Fatalf("due %v", got)
	}
	ts.set("y", time.Time{})
	if got := ts.due(t0.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("cancelled timer fired: %v", got)
	}
}
