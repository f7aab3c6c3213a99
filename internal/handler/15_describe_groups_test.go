package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDescribeAndListGroups(t *testing.T) {
	f := newGroupFixture(t)
	member, gen := f.joinOne("g", 9)
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.MemberID, sync.Generation = "g", member, gen
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = member, []byte{1, 2}
	sync.GroupAssignment = []kmsg.SyncGroupRequestGroupAssignment{a}
	f.do(sync, 5)
	for v := int16(0); v <= 6; v++ {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{"g", "missing"}
		req.IncludeAuthorizedOperations = v >= 3
		resp := f.do(req, v).(*kmsg.DescribeGroupsResponse)
		g, m := resp.Groups[0], resp.Groups[1]
		if g.State != "Stable" || g.Protocol != "range" || g.ProtocolType != "consumer" || len(g.Members) != 1 ||
			g.Members[0].MemberID != member || string(g.Members[0].MemberAssignment) != "\x01\x02" || g.Members[0].ClientHost != "/127.0.0.1" {
			t.Fatalf("v%d: %+v", v, g)
		}
		if v >= 3 && g.AuthorizedOperations != 3400 {
			t.Fatalf("v%d: authorized operations %d, want Kafka 4.4's 3400", v, g.AuthorizedOperations)
		}
		wantCode := int16(0)
		if v >= 6 {
			wantCode = kerr.GroupIDNotFound.Code
		}
		if m.State != "Dead" || m.ErrorCode != wantCode {
			t.Fatalf("v%d missing: %+v", v, m)
		}
		// Kafka 4.4 answers a group it reports as GROUP_ID_NOT_FOUND (v6) without operations.
		if v >= 6 && m.AuthorizedOperations != authorizedOperationsNotRequested {
			t.Fatalf("v%d missing: authorized operations %d, want INT32_MIN", v, m.AuthorizedOperations)
		}
	}
	for v := int16(0); v <= 5; v++ {
		req := kmsg.NewPtrListGroupsRequest()
		resp := f.do(req, v).(*kmsg.ListGroupsResponse)
		if len(resp.Groups) != 1 || resp.Groups[0].Group != "g" || resp.Groups[0].ProtocolType != "consumer" {
			t.Fatalf("v%d: %+v", v, resp)
		}
		if v >= 4 {
			req.StatesFilter = []string{"Empty"}
			if resp = f.do(req, v).(*kmsg.ListGroupsResponse); len(resp.Groups) != 0 {
				t.Fatalf("v%d states filter: %+v", v, resp)
			}
			req.StatesFilter = []string{"STABLE"}
			if resp = f.do(req, v).(*kmsg.ListGroupsResponse); len(resp.Groups) != 1 || resp.Groups[0].GroupState != "Stable" {
				t.Fatalf("v%d states filter: %+v", v, resp)
			}
		}
		if v >= 5 {
			req.StatesFilter = nil
			req.TypesFilter = []string{"consumer"}
			if resp = f.do(req, v).(*kmsg.ListGroupsResponse); len(resp.Groups) != 0 {
				t.Fatalf("v%d types filter: %+v", v, resp)
			}
			req.TypesFilter = []string{"classic"}
			if resp = f.do(req, v).(*kmsg.ListGroupsResponse); len(resp.Groups) != 1 || resp.Groups[0].GroupType != "classic" {
				t.Fatalf("v%d types filter: %+v", v, resp)
			}
		}
	}
}
