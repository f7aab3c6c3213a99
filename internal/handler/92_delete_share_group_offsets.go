package handler

// DeleteShareGroupOffsets (key 92), version 0 (KIP-932).
//
// Deletes the share state of named topics of an empty share group, as
// Kafka's GroupMetadataManager and persister: an unknown group or one of
// another type is GROUP_ID_NOT_FOUND, one with members NON_EMPTY_GROUP
// (whole-request errors, with Kafka's messages). A group holding no share
// state answers no topics. A topic that does not exist is
// UNKNOWN_TOPIC_OR_PARTITION, one without share state for the group too
// ("There is no offset information to delete."). The rows come as Kafka's:
// the deleted topics, the refused ones, then those whose deletion failed.
// The group's ShareGroupStatePartitionMetadata drops the deleted topics.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(92, 0, 0, (*Broker).handleDeleteShareGroupOffsets) }

func (b *Broker) handleDeleteShareGroupOffsets(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DeleteShareGroupOffsetsRequest)
	resp := kmsg.NewPtrDeleteShareGroupOffsetsResponse()
	topLevel := func(err *kerr.Error, msg string) Outcome {
		resp.ErrorCode, resp.ErrorMessage = err.Code, &msg
		return Ready(resp)
	}
	if err, msg := b.shareOffsetsRefusal(req.GroupID, false); err != nil {
		return topLevel(err, msg)
	}
	gc := b.groups()
	held, err := gc.ShareStatePartitions(req.GroupID)
	if err != nil {
		return topLevel(err, err.Description)
	}
	resp.Topics = []kmsg.DeleteShareGroupOffsetsResponseTopic{}
	if len(held) == 0 {
		return Ready(resp)
	}
	img := b.image()
	var refused []kmsg.DeleteShareGroupOffsetsResponseTopic
	toDelete := group.MemberAssignment{}
	var order []string
	for _, rt := range req.Topics {
		ot := kmsg.NewDeleteShareGroupOffsetsResponseTopic()
		ot.Topic = rt.Topic
		t, known := img.Topic(rt.Topic)
		switch {
		case !known:
			ot.ErrorCode, ot.ErrorMessage = kerr.UnknownTopicOrPartition.Code, errMessage(kerr.UnknownTopicOrPartition)
			refused = append(refused, ot)
		case len(held[rt.Topic]) == 0:
			msg := "There is no offset information to delete."
			ot.TopicID, ot.ErrorCode, ot.ErrorMessage = t.ID, kerr.UnknownTopicOrPartition.Code, &msg
			refused = append(refused, ot)
		default:
			if _, dup := toDelete[rt.Topic]; !dup {
				order = append(order, rt.Topic)
			}
			toDelete[rt.Topic] = held[rt.Topic]
		}
	}
	if len(toDelete) == 0 {
		resp.Topics = refused
		return Ready(resp)
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		failed := b.deleteShareState(img, req.GroupID, toDelete)
		var deleted, failedRows []kmsg.DeleteShareGroupOffsetsResponseTopic
		var gone []string
		for _, name := range order {
			ot := kmsg.NewDeleteShareGroupOffsetsResponseTopic()
			ot.Topic = name
			if t, ok := img.Topic(name); ok {
				ot.TopicID = t.ID
			}
			if f, bad := failed[name]; bad {
				msg := kerr.TypedErrorForCode(f.code).Description
				ot.ErrorCode, ot.ErrorMessage = f.code, &msg
				failedRows = append(failedRows, ot)
				continue
			}
			deleted = append(deleted, ot)
			gone = append(gone, name)
		}
		if len(gone) > 0 {
			wait, e := gc.SetShareStatePartitions(req.GroupID, nil, gone, imageTopics{img})
			if e != nil {
				resp.ErrorCode, resp.ErrorMessage, resp.Topics = e.Err.Code, &e.Message, []kmsg.DeleteShareGroupOffsetsResponseTopic{}
				return resp
			}
			if c := waitDurable(ctx, wait); c != 0 {
				resp.ErrorCode, resp.ErrorMessage = c, errMessage(kerr.TypedErrorForCode(c))
				resp.Topics = []kmsg.DeleteShareGroupOffsetsResponseTopic{}
				return resp
			}
		}
		resp.Topics = append(append(deleted, refused...), failedRows...)
		return resp
	}}
}
