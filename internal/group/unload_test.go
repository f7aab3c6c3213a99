package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestUnloadAnswersWaitingMembersAndForgetsGroups: a member waiting in a
// join gets NOT_COORDINATOR, the group is gone for new requests, and the
// old group is Dead for whoever still holds it.
func TestUnloadAnswersWaitingMembersAndForgetsGroups(t *testing.T) {
	h := newHarness(t, testConfig())
	_, joined := h.joinNew("g")
	waiting(t, joined)
	old := h.c.group("g", false)
	h.c.Unload()
	select {
	case r := <-joined:
		wantErr(t, r.Err, kerr.NotCoordinator)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting member was never answered")
	}
	if g := h.c.group("g", false); g != nil {
		t.Fatalf("group g still known after Unload: %+v", g.state)
	}
	old.mu.Lock()
	state := old.state
	old.mu.Unlock()
	if state != Dead {
		t.Fatalf("the unloaded group is %v, want Dead", state)
	}
}
