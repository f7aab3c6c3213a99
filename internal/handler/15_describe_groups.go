package handler

// DescribeGroups (key 15), versions 0–6.
//
//	v1: throttle time.
//	v3: authorized operations (KIP-430).
//	v4: group.instance.id of members.
//	v5: flexible.
//	v6: an unknown group is GROUP_ID_NOT_FOUND with a message (KIP-1043);
//	    before, it was a Dead group without error. A group of the
//	    consumer protocol (KIP-848) is answered alike, with Kafka's
//	    message "Group <id> is not a classic group.".
//
// Members' metadata and assignments are shown only in a stable group,
// as Kafka shows them.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(15, 0, 6, (*Broker).handleDescribeGroups) }

func (b *Broker) handleDescribeGroups(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeGroupsRequest)
	v := r.Version()
	resp := kmsg.NewPtrDescribeGroupsResponse()
	gc := b.groups()
	if gc == nil {
		for _, id := range req.Groups {
			g := kmsg.NewDescribeGroupsResponseGroup()
			g.Group, g.ErrorCode = id, kerr.CoordinatorNotAvailable.Code
			resp.Groups = append(resp.Groups, g)
		}
		return Ready(resp)
	}
	for _, d := range gc.Describe(req.Groups) {
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group, g.State, g.ProtocolType, g.Protocol = d.GroupID, d.State, d.ProtocolType, d.Protocol
		g.AuthorizedOperations = authorizedOperationsNotRequested
		if req.IncludeAuthorizedOperations {
			g.AuthorizedOperations = groupAuthorizedOperations
		}
		if d.Err != nil && v >= 6 {
			// Kafka answers a group it reports as an error without authorized operations.
			g.ErrorCode = d.Err.Code
			msg := d.ErrMessage
			g.ErrorMessage = &msg
			g.AuthorizedOperations = authorizedOperationsNotRequested
		}
		for _, m := range d.Members {
			gm := kmsg.NewDescribeGroupsResponseGroupMember()
			gm.MemberID, gm.InstanceID, gm.ClientID, gm.ClientHost = m.MemberID, m.InstanceID, m.ClientID, m.ClientHost
			gm.ProtocolMetadata, gm.MemberAssignment = m.Metadata, m.Assignment
			if gm.ProtocolMetadata == nil {
				gm.ProtocolMetadata = []byte{}
			}
			if gm.MemberAssignment == nil {
				gm.MemberAssignment = []byte{}
			}
			g.Members = append(g.Members, gm)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return Ready(resp)
}
