package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// A group's timer firing locks that group only: the clock moves on while
// another group's lock is held, and the due group's member expires.
func TestGroupTimerLocksOnlyItsGroup(t *testing.T) {
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
		t.Fatal("a timer waited on the lock of a group with no timer due")
	}
	b.mu.Unlock()
	wantErr(t, h.c.Heartbeat("a", idsA[0], nil, genA), kerr.UnknownMemberID)
	wantErr(t, h.c.Heartbeat("b", idsB[0], nil, genB), nil)
}
