package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestFindCoordinatorEveryVersion(t *testing.T) {
	f := newGroupFixture(t)
	for v := int16(0); v <= 6; v++ {
		req := kmsg.NewPtrFindCoordinatorRequest()
		if v < 4 {
			req.CoordinatorKey = "g"
			resp := f.do(req, v).(*kmsg.FindCoordinatorResponse)
			if resp.ErrorCode != 0 || resp.NodeID != 1 || resp.Host != "127.0.0.1" || resp.Port != 9092 {
				t.Fatalf("v%d: %+v", v, resp)
			}
			continue
		}
		req.CoordinatorKeys = []string{"a", "b"}
		resp := f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if len(resp.Coordinators) != 2 || resp.Coordinators[1].Key != "b" || resp.Coordinators[1].NodeID != 1 || resp.Coordinators[0].ErrorCode != 0 {
			t.Fatalf("v%d: %+v", v, resp)
		}
		req.CoordinatorType = 1
		resp = f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if resp.Coordinators[0].ErrorCode != kerr.CoordinatorNotAvailable.Code || resp.Coordinators[0].NodeID != -1 {
			t.Fatalf("v%d transaction: %+v", v, resp)
		}
		req.CoordinatorType = 9
		resp = f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if resp.Coordinators[0].ErrorCode != kerr.InvalidRequest.Code {
			t.Fatalf("v%d bad key type: %+v", v, resp)
		}
	}
}
