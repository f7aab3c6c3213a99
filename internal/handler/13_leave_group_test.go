package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestLeaveGroupUnknownGroup: leaving a group the coordinator does not know answers, from v3,
// NONE for the request and UNKNOWN_MEMBER_ID for each member, as Kafka 4.4 does; v0-v2, which
// name one member, answer UNKNOWN_MEMBER_ID for the request.
func TestLeaveGroupUnknownGroup(t *testing.T) {
	f := newGroupFixture(t)
	for v := int16(0); v <= 5; v++ {
		req := kmsg.NewPtrLeaveGroupRequest()
		req.Group = "missing"
		if v < 3 {
			req.MemberID = "nobody"
		} else {
			m := kmsg.NewLeaveGroupRequestMember()
			m.MemberID = "nobody"
			req.Members = append(req.Members, m)
		}
		resp := f.do(req, v).(*kmsg.LeaveGroupResponse)
		if v < 3 {
			if resp.ErrorCode != kerr.UnknownMemberID.Code {
				t.Errorf("v%d: error %d, want UNKNOWN_MEMBER_ID", v, resp.ErrorCode)
			}
			continue
		}
		if resp.ErrorCode != 0 || len(resp.Members) != 1 || resp.Members[0].MemberID != "nobody" || resp.Members[0].ErrorCode != kerr.UnknownMemberID.Code {
			t.Errorf("v%d: error %d, members %+v; want NONE and the member UNKNOWN_MEMBER_ID", v, resp.ErrorCode, resp.Members)
		}
	}
}
