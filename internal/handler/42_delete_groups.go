package handler

// DeleteGroups (key 42), versions 0–2.
//
//	v1: no change.
//	v2: flexible.
//
// Only an empty group can be deleted (NON_EMPTY_GROUP otherwise); its
// offsets go with it, as tombstones in __consumer_offsets, and the
// answer waits until they are durable.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(42, 0, 2, (*Broker).handleDeleteGroups) }

func (b *Broker) handleDeleteGroups(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DeleteGroupsRequest)
	resp := kmsg.NewPtrDeleteGroupsResponse()
	gc := b.groups()
	resp.Groups = make([]kmsg.DeleteGroupsResponseGroup, len(req.Groups))
	if gc == nil {
		for i, id := range req.Groups {
			resp.Groups[i] = kmsg.NewDeleteGroupsResponseGroup()
			resp.Groups[i].Group, resp.Groups[i].ErrorCode = id, kerr.CoordinatorNotAvailable.Code
		}
		return Ready(resp)
	}
	errs, wait := gc.DeleteGroups(req.Groups)
	for i, id := range req.Groups {
		resp.Groups[i] = kmsg.NewDeleteGroupsResponseGroup()
		resp.Groups[i].Group, resp.Groups[i].ErrorCode = id, code(errs[i])
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		if c := waitDurable(ctx, wait); c != 0 {
			for i := range resp.Groups {
				if errs[i] == nil {
					resp.Groups[i].ErrorCode = c
				}
			}
		}
		return resp
	}}
}
