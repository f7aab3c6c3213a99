package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

// groupFixture is an admin fixture with a group coordinator whose first
// rebalance does not wait.
type groupFixture struct {
	*adminFixture
	gc *group.Coordinator
}

func newGroupFixture(t *testing.T) *groupFixture {
	f := newAdminFixture(t, nil)
	cfg := group.DefaultConfig()
	cfg.InitialRebalanceDelay = 0
	gc := group.New(cfg, group.Options{Logger: f.b.logger})
	f.b.opts.Groups = gc
	return &groupFixture{adminFixture: f, gc: gc}
}

// start runs a request and returns a function that yields its answer,
// ticking the coordinator until the answer comes.
func (f *groupFixture) start(req kmsg.Request, v int16) func() kmsg.Response {
	f.t.Helper()
	req.SetVersion(v)
	api := Lookup(req.Key())
	if api == nil || !api.Supports(v) {
		f.t.Fatalf("%s v%d is not served", kmsg.NameForKey(req.Key()), v)
	}
	out := f.b.Handle(context.Background(), api, &Request{Header: wireHeader(req.Key(), v), Body: req,
		Conn: &Conn{ListenerName: "PLAINTEXT", RemoteAddr: "127.0.0.1:5555"}})
	if out.Later == nil {
		return func() kmsg.Response { return out.Response }
	}
	done := make(chan kmsg.Response, 1)
	go func() { done <- out.Later(context.Background()) }()
	return func() kmsg.Response {
		f.t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			f.gc.Tick()
			select {
			case r := <-done:
				return r
			case <-deadline:
				f.t.Fatalf("%s v%d: no answer", kmsg.NameForKey(req.Key()), v)
			case <-time.After(time.Millisecond):
			}
		}
	}
}

func (f *groupFixture) do(req kmsg.Request, v int16) kmsg.Response { return f.start(req, v)() }

func joinGroupReq(group, member string) *kmsg.JoinGroupRequest {
	req := kmsg.NewPtrJoinGroupRequest()
	req.Group, req.MemberID, req.ProtocolType = group, member, "consumer"
	req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 10000, 10000
	p := kmsg.NewJoinGroupRequestProtocol()
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"t"}
	p.Name, p.Metadata = "range", meta.AppendTo(nil)
	req.Protocols = []kmsg.JoinGroupRequestProtocol{p}
	return req
}

// joinOne makes a one-member group at version v and returns the member
// id and generation.
func (f *groupFixture) joinOne(group string, v int16) (string, int32) {
	f.t.Helper()
	member := ""
	if v >= 4 {
		resp := f.do(joinGroupReq(group, ""), v).(*kmsg.JoinGroupResponse)
		if resp.ErrorCode != kerr.MemberIDRequired.Code || resp.MemberID == "" {
			f.t.Fatalf("v%d: %+v", v, resp)
		}
		member = resp.MemberID
	}
	resp := f.do(joinGroupReq(group, member), v).(*kmsg.JoinGroupResponse)
	if resp.ErrorCode != 0 || resp.MemberID == "" || resp.LeaderID != resp.MemberID || len(resp.Members) != 1 || resp.Generation != 1 {
		f.t.Fatalf("v%d: %+v", v, resp)
	}
	if v >= 7 && (resp.ProtocolType == nil || *resp.ProtocolType != "consumer") {
		f.t.Fatalf("v%d: protocol type %v", v, resp.ProtocolType)
	}
	if resp.Protocol == nil || *resp.Protocol != "range" {
		f.t.Fatalf("v%d: protocol %v", v, resp.Protocol)
	}
	return resp.MemberID, resp.Generation
}

func TestJoinSyncHeartbeatLeaveEveryVersion(t *testing.T) {
	f := newGroupFixture(t)
	for v := int16(0); v <= 9; v++ {
		g := "g" + string(rune('0'+v))
		member, gen := f.joinOne(g, v)
		sv := min(v, 5)
		sync := kmsg.NewPtrSyncGroupRequest()
		sync.Group, sync.MemberID, sync.Generation = g, member, gen
		a := kmsg.NewSyncGroupRequestGroupAssignment()
		a.MemberID, a.MemberAssignment = member, []byte("assigned")
		sync.GroupAssignment = []kmsg.SyncGroupRequestGroupAssignment{a}
		sresp := f.do(sync, sv).(*kmsg.SyncGroupResponse)
		if sresp.ErrorCode != 0 || string(sresp.MemberAssignment) != "assigned" {
			t.Fatalf("sync v%d: %+v", sv, sresp)
		}
		hb := kmsg.NewPtrHeartbeatRequest()
		hb.Group, hb.MemberID, hb.Generation = g, member, gen
		if c := f.do(hb, min(v, 4)).(*kmsg.HeartbeatResponse).ErrorCode; c != 0 {
			t.Fatalf("heartbeat: %d", c)
		}
		hb.Generation = gen + 5
		if c := f.do(hb, min(v, 4)).(*kmsg.HeartbeatResponse).ErrorCode; c != kerr.IllegalGeneration.Code {
			t.Fatalf("heartbeat: %d", c)
		}
		leave := kmsg.NewPtrLeaveGroupRequest()
		leave.Group = g
		lv := min(v, 5)
		if lv < 3 {
			leave.MemberID = member
		} else {
			m := kmsg.NewLeaveGroupRequestMember()
			m.MemberID = member
			ghost := kmsg.NewLeaveGroupRequestMember()
			ghost.MemberID = "ghost"
			leave.Members = []kmsg.LeaveGroupRequestMember{m, ghost}
		}
		lresp := f.do(leave, lv).(*kmsg.LeaveGroupResponse)
		if lresp.ErrorCode != 0 || (lv >= 3 && (len(lresp.Members) != 2 || lresp.Members[0].ErrorCode != 0 || lresp.Members[1].ErrorCode != kerr.UnknownMemberID.Code)) {
			t.Fatalf("leave v%d: %+v", lv, lresp)
		}
	}
}

func TestJoinWaitsForOtherMembers(t *testing.T) {
	f := newGroupFixture(t)
	a, gen := f.joinOne("g", 9)
	// b joins: the group rebalances and b's answer waits for a to rejoin.
	r := f.do(joinGroupReq("g", ""), 9).(*kmsg.JoinGroupResponse)
	waitB := f.start(joinGroupReq("g", r.MemberID), 9)
	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Group, hb.MemberID, hb.Generation = "g", a, gen
	if c := f.do(hb, 4).(*kmsg.HeartbeatResponse).ErrorCode; c != kerr.RebalanceInProgress.Code {
		t.Fatalf("heartbeat during rebalance: %d", c)
	}
	ra := f.do(joinGroupReq("g", a), 9).(*kmsg.JoinGroupResponse)
	rb := waitB().(*kmsg.JoinGroupResponse)
	if ra.Generation != gen+1 || rb.Generation != gen+1 || ra.LeaderID != a || len(ra.Members) != 2 || len(rb.Members) != 0 {
		t.Fatalf("%+v\n%+v", ra, rb)
	}
	// b's sync waits for the leader's.
	sb := kmsg.NewPtrSyncGroupRequest()
	sb.Group, sb.MemberID, sb.Generation = "g", r.MemberID, rb.Generation
	waitSync := f.start(sb, 5)
	sa := kmsg.NewPtrSyncGroupRequest()
	sa.Group, sa.MemberID, sa.Generation = "g", a, ra.Generation
	for _, m := range []string{a, r.MemberID} {
		as := kmsg.NewSyncGroupRequestGroupAssignment()
		as.MemberID, as.MemberAssignment = m, []byte("for "+m)
		sa.GroupAssignment = append(sa.GroupAssignment, as)
	}
	f.do(sa, 5)
	if got := waitSync().(*kmsg.SyncGroupResponse); got.ErrorCode != 0 || string(got.MemberAssignment) != "for "+r.MemberID {
		t.Fatalf("%+v", got)
	}
}

func TestGroupAPIsWithoutCoordinator(t *testing.T) {
	f := newAdminFixture(t, nil)
	want := kerr.CoordinatorNotAvailable.Code
	if c := f.call(joinGroupReq("g", ""), 9).(*kmsg.JoinGroupResponse).ErrorCode; c != want {
		t.Fatalf("join: %d", c)
	}
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKey = "g"
	if c := f.call(fc, 3).(*kmsg.FindCoordinatorResponse).ErrorCode; c != want {
		t.Fatalf("find coordinator: %d", c)
	}
}
