package handler

// DeleteGroups (key 42), versions 0–3.
//
//	v1: no change.
//	v2: flexible.
//	v3: an error message per group. As Kafka's GroupCoordinatorService,
//	    it is set when the coordinator itself failed the deletion (none
//	    running, or the tombstones not durable), with the error's
//	    description, and null for a group's own error (NON_EMPTY_GROUP,
//	    GROUP_ID_NOT_FOUND).
//
// Only an empty group can be deleted (NON_EMPTY_GROUP otherwise); its
// offsets go with it, as tombstones in __consumer_offsets, and the
// answer waits until they are durable. An empty share group's share
// state is deleted from __share_group_state first (Kafka's
// DeleteShareGroupState through the persister); if that fails the group
// stays and is answered with the share coordinator's error.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(42, 0, 3, (*Broker).handleDeleteGroups) }

func (b *Broker) handleDeleteGroups(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DeleteGroupsRequest)
	resp := kmsg.NewPtrDeleteGroupsResponse()
	gc := b.groups()
	resp.Groups = make([]kmsg.DeleteGroupsResponseGroup, len(req.Groups))
	for i, id := range req.Groups {
		resp.Groups[i] = kmsg.NewDeleteGroupsResponseGroup()
		resp.Groups[i].Group = id
	}
	coordinatorFailed := func(g *kmsg.DeleteGroupsResponseGroup, code int16) {
		g.ErrorCode = code
		if r.Version() >= 3 {
			msg := kerr.TypedErrorForCode(code).Description
			g.ErrorMessage = &msg
		}
	}
	if gc == nil {
		for i := range resp.Groups {
			coordinatorFailed(&resp.Groups[i], kerr.CoordinatorNotAvailable.Code)
		}
		return Ready(resp)
	}
	deleteGroups := func(ctx context.Context, refused map[string]int16) kmsg.Response {
		var kept []string
		var at []int
		for i, id := range req.Groups {
			if c, ok := refused[id]; ok {
				resp.Groups[i].ErrorCode = c
				continue
			}
			kept, at = append(kept, id), append(at, i)
		}
		errs, wait := gc.DeleteGroups(kept)
		for j, i := range at {
			resp.Groups[i].ErrorCode = code(errs[j])
		}
		if c := waitDurable(ctx, wait); c != 0 {
			for j, i := range at {
				if errs[j] == nil {
					coordinatorFailed(&resp.Groups[i], c)
				}
			}
		}
		return resp
	}
	if !b.holdsShareGroups(req.Groups) {
		errs, wait := gc.DeleteGroups(req.Groups)
		for i := range resp.Groups {
			resp.Groups[i].ErrorCode = code(errs[i])
		}
		return Outcome{Later: func(ctx context.Context) kmsg.Response {
			if c := waitDurable(ctx, wait); c != 0 {
				for i := range resp.Groups {
					if errs[i] == nil {
						coordinatorFailed(&resp.Groups[i], c)
					}
				}
			}
			return resp
		}}
	}
	// A share group's share state goes first, in __share_group_state; a
	// group whose state could not be deleted stays, with that error.
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		return deleteGroups(ctx, b.deleteShareGroupsState(req.Groups))
	}}
}
