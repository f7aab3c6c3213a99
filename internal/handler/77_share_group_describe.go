package handler

// ShareGroupDescribe (key 77), versions 0–1: share groups with their
// epochs and members' subscriptions and assignments. v0 is Kafka 4.0's
// early-access version, with v1's fields. A group of another type ("Group
// <id> is not a share group.") or an unknown id ("Group <id> not found.")
// is GROUP_ID_NOT_FOUND, as in Kafka.

import (
	"context"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(77, 0, 1, (*Broker).handleShareGroupDescribe) }

func (b *Broker) handleShareGroupDescribe(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ShareGroupDescribeRequest)
	resp := kmsg.NewPtrShareGroupDescribeResponse()
	gc := b.groups()
	if gc == nil || b.opts.Metadata == nil {
		for _, id := range req.GroupIDs {
			g := kmsg.NewShareGroupDescribeResponseGroup()
			g.GroupID, g.ErrorCode = id, kerr.CoordinatorNotAvailable.Code
			resp.Groups = append(resp.Groups, g)
		}
		return Ready(resp)
	}
	img := b.opts.Metadata.Image()
	for _, d := range gc.DescribeShareGroups(req.GroupIDs) {
		g := kmsg.NewShareGroupDescribeResponseGroup()
		g.GroupID = d.GroupID
		g.AuthorizedOperations = authorizedOperationsNotRequested
		if d.Err != nil {
			g.ErrorCode = d.Err.Code
			if d.ErrMessage != "" {
				msg := d.ErrMessage
				g.ErrorMessage = &msg
			}
			resp.Groups = append(resp.Groups, g)
			continue
		}
		if req.IncludeAuthorizedOperations {
			g.AuthorizedOperations = groupAuthorizedOperations
		}
		g.GroupState, g.GroupEpoch, g.AssignmentEpoch, g.Assignor = d.State, d.GroupEpoch, d.AssignmentEpoch, d.Assignor
		g.Members = []kmsg.ShareGroupDescribeResponseGroupMember{}
		for _, m := range d.Members {
			gm := kmsg.NewShareGroupDescribeResponseGroupMember()
			gm.MemberID, gm.RackID, gm.MemberEpoch, gm.ClientID, gm.ClientHost = m.MemberID, m.RackID, m.MemberEpoch, m.ClientID, m.ClientHost
			gm.SubscribedTopicNames = m.Topics
			if gm.SubscribedTopicNames == nil {
				gm.SubscribedTopicNames = []string{}
			}
			gm.Assignment = shareDescribeAssignment(img, m.Assignment)
			g.Members = append(g.Members, gm)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return Ready(resp)
}

func shareDescribeAssignment(img *metadata.Image, ma group.MemberAssignment) kmsg.ShareGroupDescribeResponseGroupMemberAssignment {
	a := kmsg.NewShareGroupDescribeResponseGroupMemberAssignment()
	a.TopicPartitions = []kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition{}
	for _, name := range slices.Sorted(maps.Keys(ma)) {
		tp := kmsg.NewShareGroupDescribeResponseGroupMemberAssignmentTopicPartition()
		tp.Topic, tp.Partitions = name, ma[name]
		if t, ok := img.Topic(name); ok {
			tp.TopicID = t.ID
		}
		a.TopicPartitions = append(a.TopicPartitions, tp)
	}
	return a
}
