package handler

// ConsumerGroupDescribe (key 69), versions 0–1: consumer-protocol groups
// with their epochs, members, and current and target assignments.
//
//	v1: MemberType (KIP-1099); always 1 (consumer), as every member of a
//	    consumer group here speaks the consumer protocol (Kafka 4.4 answers
//	    0 for a classic member of a migrated group).
//
// A classic group ("Group <id> is not a consumer group.") or an unknown
// id ("Group <id> not found.") is GROUP_ID_NOT_FOUND, as in Kafka.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(69, 0, 1, (*Broker).handleConsumerGroupDescribe) }

func (b *Broker) handleConsumerGroupDescribe(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ConsumerGroupDescribeRequest)
	resp := kmsg.NewPtrConsumerGroupDescribeResponse()
	gc := b.groups()
	if gc == nil || b.opts.Metadata == nil {
		for _, id := range req.Groups {
			g := kmsg.NewConsumerGroupDescribeResponseGroup()
			g.Group, g.ErrorCode = id, kerr.CoordinatorNotAvailable.Code
			resp.Groups = append(resp.Groups, g)
		}
		return Ready(resp)
	}
	img := b.opts.Metadata.Image()
	for _, d := range gc.DescribeConsumerGroups(req.Groups) {
		g := kmsg.NewConsumerGroupDescribeResponseGroup()
		g.Group = d.GroupID
		g.AuthorizedOperations = authorizedOperationsNotRequested
		if req.IncludeAuthorizedOperations {
			g.AuthorizedOperations = groupAuthorizedOperations
		}
		if d.Err != nil {
			// Kafka answers a group it reports as an error without authorized operations.
			g.ErrorCode = d.Err.Code
			msg := d.ErrMessage
			g.ErrorMessage = &msg
			g.AuthorizedOperations = authorizedOperationsNotRequested
			resp.Groups = append(resp.Groups, g)
			continue
		}
		g.State, g.Epoch, g.AssignmentEpoch, g.AssignorName = d.State, d.Epoch, d.AssignmentEpoch, d.Assignor
		for _, m := range d.Members {
			gm := kmsg.NewConsumerGroupDescribeResponseGroupMember()
			gm.MemberID, gm.InstanceID, gm.RackID, gm.MemberEpoch = m.MemberID, m.InstanceID, m.RackID, m.MemberEpoch
			gm.ClientID, gm.ClientHost = m.ClientID, m.ClientHost
			gm.SubscribedTopics, gm.SubscribedTopicRegex = m.SubscribedTopics, m.SubscribedRegex
			if gm.SubscribedTopics == nil {
				gm.SubscribedTopics = []string{}
			}
			if gm.SubscribedTopicRegex == nil {
				gm.SubscribedTopicRegex = &noRegex // Kafka answers "" for a member without one
			}
			gm.MemberType = memberTypeConsumer
			gm.Assignment = describeAssignment(img, m.Assignment)
			gm.TargetAssignment = describeAssignment(img, m.TargetAssignment)
			g.Members = append(g.Members, gm)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return Ready(resp)
}

// memberTypeConsumer is KIP-1099's member type of a consumer-protocol member (-1 unknown,
// 0 classic, 1 consumer).
const memberTypeConsumer = 1

var noRegex = ""

func describeAssignment(img *metadata.Image, ma group.MemberAssignment) kmsg.Assignment {
	a := kmsg.NewAssignment()
	a.TopicPartitions = []kmsg.AssignmentTopicPartition{}
	names := make([]string, 0, len(ma))
	for name := range ma {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		tp := kmsg.NewAssignmentTopicPartition()
		tp.Topic = name
		if t, ok := img.Topic(name); ok {
			tp.TopicID = t.ID
		}
		tp.Partitions = ma[name]
		a.TopicPartitions = append(a.TopicPartitions, tp)
	}
	return a
}
