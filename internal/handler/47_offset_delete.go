package handler

// OffsetDelete (key 47), version 0 (KIP-496).
//
// Deletes committed offsets of an empty group, or of topics a consumer
// group is not subscribed to (GROUP_SUBSCRIBED_TO_TOPIC otherwise); a
// group of another protocol type with members answers NON_EMPTY_GROUP.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(47, 0, 0, (*Broker).handleOffsetDelete) }

func (b *Broker) handleOffsetDelete(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.OffsetDeleteRequest)
	resp := kmsg.NewPtrOffsetDeleteResponse()
	gc := b.groups()
	if gc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	img := b.image()
	var tps []group.TopicPartition
	var out []*kmsg.OffsetDeleteResponseTopicPartition
	resp.Topics = make([]kmsg.OffsetDeleteResponseTopic, len(req.Topics))
	for i, rt := range req.Topics {
		t := &resp.Topics[i]
		*t = kmsg.NewOffsetDeleteResponseTopic()
		t.Topic = rt.Topic
		t.Partitions = make([]kmsg.OffsetDeleteResponseTopicPartition, len(rt.Partitions))
		_, known := img.Topic(rt.Topic)
		for j, rp := range rt.Partitions {
			p := &t.Partitions[j]
			*p = kmsg.NewOffsetDeleteResponseTopicPartition()
			p.Partition = rp.Partition
			if !known {
				p.ErrorCode = kerr.UnknownTopicOrPartition.Code
				continue
			}
			tps = append(tps, group.TopicPartition{Topic: rt.Topic, Partition: rp.Partition})
			out = append(out, p)
		}
	}
	top, errs, wait := gc.DeleteOffsets(req.Group, tps)
	if top != nil {
		resp.ErrorCode = top.Code
		resp.Topics = nil
		return Ready(resp)
	}
	for i, p := range out {
		p.ErrorCode = code(errs[i])
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		if c := waitDurable(ctx, wait); c != 0 {
			resp.ErrorCode = c
		}
		return resp
	}}
}
