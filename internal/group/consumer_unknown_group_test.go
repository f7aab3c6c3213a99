package group

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestConsumerHeartbeatUnknownGroup: a heartbeat or a leave (any epoch but 0) for a group the
// coordinator does not know gets GROUP_ID_NOT_FOUND, as Kafka 4.4 answers, not
// UNKNOWN_MEMBER_ID; it does not create the group.
func TestConsumerHeartbeatUnknownGroup(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 1})
	for _, epoch := range []int32{3, -1, -2} {
		r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "missing", MemberID: "m", MemberEpoch: epoch, Topics: h.topics})
		if r.Err != kerr.GroupIDNotFound {
			t.Errorf("epoch %d: %v, want GROUP_ID_NOT_FOUND", epoch, r.Err)
		}
	}
	if g := h.c.group("missing", false); g != nil {
		t.Error("the heartbeats created the group")
	}
}
