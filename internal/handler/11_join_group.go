package handler

// JoinGroup (key 11), versions 0–9.
//
//	v1: rebalance timeout (v0 uses the session timeout for both).
//	v2: throttle time.
//	v4: a member joining without an id gets one and MEMBER_ID_REQUIRED,
//	    and joins again with it (KIP-394).
//	v5: group.instance.id: static membership (KIP-345).
//	v6: flexible.
//	v7: protocol type and name in the response.
//	v8: reason.
//	v9: skip assignment, for a static leader whose group did not
//	    rebalance (KIP-814).
//
// The answer waits, off the connection's reader, until the join phase of
// the rebalance completes.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(11, 0, 9, (*Broker).handleJoinGroup) }

func (b *Broker) handleJoinGroup(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.JoinGroupRequest)
	v := r.Version()
	gc := b.groups()
	if gc == nil {
		return Ready(joinGroupResponse(v, group.JoinResult{Err: kerr.CoordinatorNotAvailable, MemberID: req.MemberID, Generation: -1}))
	}
	jr := group.JoinRequest{
		GroupID: req.Group, MemberID: req.MemberID, ClientID: clientID(r), ClientHost: clientHost(r.Conn),
		ProtocolType:         req.ProtocolType,
		SessionTimeout:       time.Duration(req.SessionTimeoutMillis) * time.Millisecond,
		RebalanceTimeout:     time.Duration(req.RebalanceTimeoutMillis) * time.Millisecond,
		RequireKnownMemberID: v >= 4,
	}
	if v == 0 {
		jr.RebalanceTimeout = jr.SessionTimeout
	}
	if v >= 5 {
		jr.InstanceID = req.InstanceID
	}
	for _, p := range req.Protocols {
		jr.Protocols = append(jr.Protocols, group.Protocol{Name: p.Name, Metadata: p.Metadata})
	}
	ch := gc.Join(jr)
	select {
	case res := <-ch:
		if res.Wait == nil {
			return Ready(joinGroupResponse(v, res))
		}
		return Outcome{Later: func(ctx context.Context) kmsg.Response { return joinAfterWrite(ctx, v, res) }}
	default:
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		select {
		case res := <-ch:
			return joinAfterWrite(ctx, v, res)
		case <-ctx.Done():
			// The connection is going away; the member stays until its
			// join times out, as in Kafka.
			return joinGroupResponse(v, group.JoinResult{Err: kerr.RebalanceInProgress, MemberID: req.MemberID, Generation: -1})
		}
	}}
}

// joinAfterWrite answers once the group's record naming the member is
// durable, as Kafka answers a static member that replaced its old id in a
// stable group; if it is not, the member is told with the error Kafka
// gives a failed write, and no member id.
func joinAfterWrite(ctx context.Context, v int16, res group.JoinResult) kmsg.Response {
	if res.Wait != nil {
		if c := waitDurable(ctx, res.Wait); c != 0 {
			res.Err, res.MemberID, res.Members, res.SkipAssignment = kerr.ErrorForCode(c).(*kerr.Error), "", nil, false
		}
	}
	return joinGroupResponse(v, res)
}

func joinGroupResponse(v int16, res group.JoinResult) *kmsg.JoinGroupResponse {
	resp := kmsg.NewPtrJoinGroupResponse()
	resp.SetVersion(v)
	resp.ErrorCode = code(res.Err)
	resp.Generation = res.Generation
	resp.MemberID = res.MemberID
	resp.LeaderID = res.Leader
	resp.ProtocolType = res.ProtocolType
	resp.Protocol = res.Protocol
	if v < 7 && resp.Protocol == nil {
		empty := ""
		resp.Protocol = &empty
	}
	resp.SkipAssignment = res.SkipAssignment
	for _, m := range res.Members {
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID, jm.InstanceID, jm.ProtocolMetadata = m.MemberID, m.InstanceID, m.Metadata
		if jm.ProtocolMetadata == nil {
			jm.ProtocolMetadata = []byte{}
		}
		resp.Members = append(resp.Members, jm)
	}
	return resp
}
