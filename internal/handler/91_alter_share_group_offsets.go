package handler

// AlterShareGroupOffsets (key 91), version 0 (KIP-932).
//
// Sets the share-partition start offsets of an empty share group, as
// Kafka's GroupMetadataManager and persister: a group that does not exist
// is created; one of another type is GROUP_ID_NOT_FOUND, one with members
// NON_EMPTY_GROUP (whole-request errors, with Kafka's messages). A topic
// or partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION. Each
// partition's share state is written anew (InitializeShareGroupState: a
// snapshot with the start offset, no in-flight records, the next state
// epoch), then the group's ShareGroupStatePartitionMetadata lists it; the
// answer waits for both.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/share"
)

func init() { register(91, 0, 0, (*Broker).handleAlterShareGroupOffsets) }

func (b *Broker) handleAlterShareGroupOffsets(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AlterShareGroupOffsetsRequest)
	resp := kmsg.NewPtrAlterShareGroupOffsetsResponse()
	topLevel := func(err *kerr.Error, msg string) Outcome {
		resp.ErrorCode, resp.ErrorMessage = err.Code, &msg
		return Ready(resp)
	}
	if err, msg := b.shareOffsetsRefusal(req.GroupID, true); err != nil {
		return topLevel(err, msg)
	}
	gc := b.groups()
	img := b.image()
	type pending struct {
		k     share.Key
		topic string
		start int64
		out   *kmsg.AlterShareGroupOffsetsResponseTopicPartition
	}
	var todo []pending
	resp.Topics = make([]kmsg.AlterShareGroupOffsetsResponseTopic, len(req.Topics))
	for i, rt := range req.Topics {
		ot := &resp.Topics[i]
		*ot = kmsg.NewAlterShareGroupOffsetsResponseTopic()
		ot.Topic = rt.Topic
		t, known := img.Topic(rt.Topic)
		if known {
			ot.TopicID = t.ID
		}
		ot.Partitions = make([]kmsg.AlterShareGroupOffsetsResponseTopicPartition, len(rt.Partitions))
		for j, rp := range rt.Partitions {
			op := &ot.Partitions[j]
			*op = kmsg.NewAlterShareGroupOffsetsResponseTopicPartition()
			op.Partition = rp.Partition
			if !known || rp.Partition < 0 || int(rp.Partition) >= len(t.Partitions) {
				op.ErrorCode, op.ErrorMessage = kerr.UnknownTopicOrPartition.Code, errMessage(kerr.UnknownTopicOrPartition)
				continue
			}
			todo = append(todo, pending{k: share.Key{Group: req.GroupID, TopicID: t.ID, Partition: rp.Partition},
				topic: rt.Topic, start: rp.StartOffset, out: op})
		}
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		written := group.MemberAssignment{}
		for _, p := range todo {
			st, err := b.opts.ShareState.ReadState(p.k)
			if err == nil {
				err = b.opts.ShareState.Initialize(p.k, st.StateEpoch+1, p.start)
			}
			if err != nil {
				msg := err.Error()
				p.out.ErrorCode, p.out.ErrorMessage = shareErrorCode(err), &msg
				continue
			}
			if b.opts.Shares != nil {
				b.opts.Shares.Forget(p.k)
			}
			written[p.topic] = append(written[p.topic], p.k.Partition)
		}
		if len(written) == 0 {
			return resp
		}
		wait, e := gc.SetShareStatePartitions(req.GroupID, written, nil, imageTopics{img})
		if e != nil {
			resp.ErrorCode, resp.ErrorMessage, resp.Topics = e.Err.Code, &e.Message, nil
			return resp
		}
		if c := waitDurable(ctx, wait); c != 0 {
			resp.ErrorCode, resp.ErrorMessage, resp.Topics = c, errMessage(kerr.TypedErrorForCode(c)), nil
		}
		return resp
	}}
}
