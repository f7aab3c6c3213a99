package handler

// ListGroups (key 16), versions 0–5.
//
//	v1: throttle time.
//	v3: flexible.
//	v4: states filter and each group's state (KIP-518).
//	v5: types filter and each group's type (KIP-848): "classic" or
//	    "consumer".

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(16, 0, 5, (*Broker).handleListGroups) }

func (b *Broker) handleListGroups(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ListGroupsRequest)
	v := r.Version()
	resp := kmsg.NewPtrListGroupsResponse()
	gc := b.groups()
	if gc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	var states, types []string
	if v >= 4 {
		states = req.StatesFilter
	}
	if v >= 5 {
		types = req.TypesFilter
	}
	for _, l := range gc.List(states, types) {
		g := kmsg.NewListGroupsResponseGroup()
		g.Group, g.ProtocolType, g.GroupState, g.GroupType = l.GroupID, l.ProtocolType, l.State, l.Type
		resp.Groups = append(resp.Groups, g)
	}
	return Ready(resp)
}
