package handler

// LeaveGroup (key 13), versions 0–5.
//
//	v1: throttle time.
//	v3: several members per request, by member id or group.instance.id,
//	    each with its own error (KIP-345).
//	v4: flexible.
//	v5: reason per member.
//
// v0–v2 name one member; its error is the response's.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(13, 0, 5, (*Broker).handleLeaveGroup) }

func (b *Broker) handleLeaveGroup(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.LeaveGroupRequest)
	resp := kmsg.NewPtrLeaveGroupResponse()
	gc := b.groups()
	if gc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	if r.Version() < 3 {
		top, errs := gc.Leave(req.Group, []group.MemberIdentity{{MemberID: req.MemberID}})
		resp.ErrorCode = code(top)
		if top == nil && len(errs) == 1 {
			resp.ErrorCode = code(errs[0])
		}
		return Ready(resp)
	}
	ids := make([]group.MemberIdentity, len(req.Members))
	for i, m := range req.Members {
		ids[i] = group.MemberIdentity{MemberID: m.MemberID, InstanceID: m.InstanceID}
	}
	top, errs := gc.Leave(req.Group, ids)
	resp.ErrorCode = code(top)
	if top != nil {
		return Ready(resp)
	}
	for i, m := range req.Members {
		out := kmsg.NewLeaveGroupResponseMember()
		out.MemberID, out.InstanceID, out.ErrorCode = m.MemberID, m.InstanceID, code(errs[i])
		resp.Members = append(resp.Members, out)
	}
	return Ready(resp)
}
