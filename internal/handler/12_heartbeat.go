package handler

// Heartbeat (key 12), versions 0–4.
//
//	v1: throttle time.
//	v3: group.instance.id.
//	v4: flexible.
//
// REBALANCE_IN_PROGRESS tells the member to join again.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(12, 0, 4, (*Broker).handleHeartbeat) }

func (b *Broker) handleHeartbeat(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.HeartbeatRequest)
	resp := kmsg.NewPtrHeartbeatResponse()
	gc := b.groups()
	if gc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	var instance *string
	if r.Version() >= 3 {
		instance = req.InstanceID
	}
	resp.ErrorCode = code(gc.Heartbeat(req.Group, req.MemberID, instance, req.Generation))
	return Ready(resp)
}
