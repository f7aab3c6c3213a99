package handler

// DescribeShareGroupOffsets (key 90), versions 0-1 (KIP-932).
//
//	v1: Topics may be null, meaning every topic whose share state the
//	    group holds; each partition carries its lag.
//
// As Kafka's GroupCoordinatorService: a named topic is read from the share
// state whatever the group is (an unknown topic, or a partition with no
// state, answers start offset -1 with no error, as OffsetFetch answers
// absent data); all topics are those of the group's
// ShareGroupStatePartitionMetadata (none for an unknown group or one of
// another type). The lag is the partition's end offset less the start
// offset and the records past it whose delivery is complete; -1 where
// there is no state.

import (
	"context"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/share"
)

func init() { register(90, 0, 1, (*Broker).handleDescribeShareGroupOffsets) }

func (b *Broker) handleDescribeShareGroupOffsets(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeShareGroupOffsetsRequest)
	return Outcome{Later: func(context.Context) kmsg.Response {
		resp := kmsg.NewPtrDescribeShareGroupOffsetsResponse()
		img := b.image()
		for _, rg := range req.Groups {
			resp.Groups = append(resp.Groups, b.describeShareOffsets(img, rg))
		}
		return resp
	}}
}

func (b *Broker) describeShareOffsets(img *metadata.Image, rg kmsg.DescribeShareGroupOffsetsRequestGroup) kmsg.DescribeShareGroupOffsetsResponseGroup {
	out := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
	out.GroupID = rg.GroupID
	out.Topics = []kmsg.DescribeShareGroupOffsetsResponseGroupTopic{}
	if b.shareOffsetsUnavailable() {
		out.ErrorCode, out.ErrorMessage = kerr.CoordinatorNotAvailable.Code, errMessage(kerr.CoordinatorNotAvailable)
		return out
	}
	topics := rg.Topics
	if topics == nil {
		parts, err := b.groups().ShareStatePartitions(rg.GroupID)
		if err != nil {
			out.ErrorCode, out.ErrorMessage = err.Code, errMessage(err)
			return out
		}
		for _, name := range slices.Sorted(maps.Keys(parts)) {
			if _, ok := img.Topic(name); ok {
				topics = append(topics, kmsg.DescribeShareGroupOffsetsRequestGroupTopic{Topic: name, Partitions: parts[name]})
			}
		}
	}
	var missing []kmsg.DescribeShareGroupOffsetsResponseGroupTopic
	for _, rt := range topics {
		ot := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
		ot.Topic = rt.Topic
		t, ok := img.Topic(rt.Topic)
		for _, p := range rt.Partitions {
			op := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
			op.Partition, op.StartOffset = p, -1
			if ok {
				b.fillShareOffset(t, rg.GroupID, &op)
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		if !ok {
			missing = append(missing, ot)
			continue
		}
		ot.TopicID = t.ID
		out.Topics = append(out.Topics, ot)
	}
	out.Topics = append(out.Topics, missing...)
	return out
}

// fillShareOffset sets op's start offset, leader epoch and lag from the
// share state of (group, t, op.Partition).
func (b *Broker) fillShareOffset(t *metadata.Topic, groupID string, op *kmsg.DescribeShareGroupOffsetsResponseGroupTopicPartition) {
	st, ok, err := b.opts.ShareState.Lookup(share.Key{Group: groupID, TopicID: t.ID, Partition: op.Partition})
	if err != nil || !ok || st.StartOffset < 0 {
		return
	}
	op.StartOffset, op.LeaderEpoch = st.StartOffset, st.LeaderEpoch
	part, _, c := b.leaderPartition(t, op.Partition, -1)
	if c != 0 {
		op.ErrorCode, op.ErrorMessage = c, errMessage(kerr.TypedErrorForCode(c))
		return
	}
	op.Lag = part.Log.HighWatermark() - st.StartOffset - st.DeliveryComplete()
}
