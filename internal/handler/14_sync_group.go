package handler

// SyncGroup (key 14), versions 0–5.
//
//	v1: throttle time.
//	v3: group.instance.id.
//	v4: flexible.
//	v5: protocol type and name, checked against the group's.
//
// The leader's request carries the assignment; every member's answer
// waits, off the connection's reader, until it arrives.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(14, 0, 5, (*Broker).handleSyncGroup) }

func (b *Broker) handleSyncGroup(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.SyncGroupRequest)
	v := r.Version()
	gc := b.groups()
	if gc == nil {
		return Ready(syncGroupResponse(v, group.SyncResult{Err: kerr.CoordinatorNotAvailable}))
	}
	sr := group.SyncRequest{GroupID: req.Group, MemberID: req.MemberID, Generation: req.Generation}
	if v >= 3 {
		sr.InstanceID = req.InstanceID
	}
	if v >= 5 {
		sr.ProtocolType, sr.Protocol = req.ProtocolType, req.Protocol
	}
	for _, a := range req.GroupAssignment {
		sr.Assignments = append(sr.Assignments, group.Assignment{MemberID: a.MemberID, Assignment: a.MemberAssignment})
	}
	ch := gc.Sync(sr)
	select {
	case res := <-ch:
		if res.Wait == nil {
			return Ready(syncGroupResponse(v, res))
		}
		return Outcome{Later: func(ctx context.Context) kmsg.Response { return syncAfterWrite(ctx, v, res) }}
	default:
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		select {
		case res := <-ch:
			return syncAfterWrite(ctx, v, res)
		case <-ctx.Done():
			return syncGroupResponse(v, group.SyncResult{Err: kerr.RebalanceInProgress})
		}
	}}
}

// syncAfterWrite answers once the new generation is durable, as Kafka
// answers SyncGroup once the group's metadata is written.
func syncAfterWrite(ctx context.Context, v int16, res group.SyncResult) kmsg.Response {
	if res.Wait != nil {
		if c := waitDurable(ctx, res.Wait); c != 0 {
			resp := syncGroupResponse(v, group.SyncResult{})
			resp.ErrorCode = c
			return resp
		}
	}
	return syncGroupResponse(v, res)
}

func syncGroupResponse(v int16, res group.SyncResult) *kmsg.SyncGroupResponse {
	resp := kmsg.NewPtrSyncGroupResponse()
	resp.SetVersion(v)
	resp.ErrorCode = code(res.Err)
	resp.ProtocolType, resp.Protocol = res.ProtocolType, res.Protocol
	resp.MemberAssignment = res.Assignment
	if resp.MemberAssignment == nil {
		resp.MemberAssignment = []byte{}
	}
	return resp
}
