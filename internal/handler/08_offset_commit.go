package handler

// OffsetCommit (key 8), versions 0–10.
//
//	v0: no generation or member: a simple commit (0.8.1 kept these in
//	    ZooKeeper; Karst keeps every version's in __consumer_offsets, so
//	    OffsetFetch of any version reads them).
//	v1: generation, member id, and a commit timestamp per partition:
//	    other than -1, it is stored as the offset's commit time, as Kafka
//	    3.x stored it, so offsets.retention.minutes counts from it where
//	    expiry counts from the commit (simple groups, unsubscribed topics).
//	Kafka 4 dropped v0–v1 (KIP-896); Karst serves them for 0.8.2 clients.
//	v2–v4: retention time (ignored, as Kafka ignores it since 2.1).
//	v3: throttle time.
//	v6: leader epoch per partition.
//	v7: group.instance.id.
//	v8: flexible.
//	v9: a commit with a generation to a group that does not exist is
//	    GROUP_ID_NOT_FOUND rather than ILLEGAL_GENERATION (KIP-848).
//	v10: topics named by topic id, answered with it (KIP-848); an id the
//	    metadata does not know is UNKNOWN_TOPIC_ID.
//
// A commit with generation -1 and no member id comes from outside group
// management and is accepted while the group is empty. Offsets are
// written to __consumer_offsets and answered once durable.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(8, 0, 10, (*Broker).handleOffsetCommit) }

func (b *Broker) handleOffsetCommit(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.OffsetCommitRequest)
	v := r.Version()
	resp := kmsg.NewPtrOffsetCommitResponse()
	// out[i] points at the answer for the i-th offset sent to the
	// coordinator.
	var out []*kmsg.OffsetCommitResponseTopicPartition
	cr := group.CommitRequest{GroupID: req.Group, MemberID: req.MemberID, Generation: req.Generation, UnknownGroupNotFound: v >= 9}
	if v >= 7 {
		cr.InstanceID = req.InstanceID
	}
	if v == 0 {
		cr.MemberID, cr.Generation = "", -1
	}
	img := b.image()
	resp.Topics = make([]kmsg.OffsetCommitResponseTopic, len(req.Topics))
	for i, rt := range req.Topics {
		t := &resp.Topics[i]
		*t = kmsg.NewOffsetCommitResponseTopic()
		t.Topic, t.TopicID = rt.Topic, rt.TopicID
		t.Partitions = make([]kmsg.OffsetCommitResponseTopicPartition, len(rt.Partitions))
		topic, topicCode := requestTopic(img, v >= 10, rt.Topic, rt.TopicID)
		for j, rp := range rt.Partitions {
			p := &t.Partitions[j]
			*p = kmsg.NewOffsetCommitResponseTopicPartition()
			p.Partition = rp.Partition
			if p.ErrorCode = topicCode; topicCode == 0 {
				p.ErrorCode = offsetPartitionCode(topic, rp.Partition)
			}
			if p.ErrorCode != 0 {
				continue
			}
			epoch := int32(-1)
			if v >= 6 {
				epoch = rp.LeaderEpoch
			}
			o := group.OffsetToCommit{
				TopicPartition: group.TopicPartition{Topic: topic.Name, Partition: rp.Partition},
				Offset:         rp.Offset, LeaderEpoch: epoch, Metadata: rp.Metadata,
			}
			if v == 1 && rp.Timestamp != -1 {
				o.CommitTimestamp = &rp.Timestamp
			}
			cr.Offsets = append(cr.Offsets, o)
			out = append(out, p)
		}
	}
	gc := b.groups()
	if gc == nil {
		for _, p := range out {
			p.ErrorCode = kerr.CoordinatorNotAvailable.Code
		}
		return Ready(resp)
	}
	if len(cr.Offsets) == 0 {
		return Ready(resp)
	}
	top, errs, wait := gc.CommitOffsets(cr)
	for i, p := range out {
		switch {
		case top != nil:
			p.ErrorCode = top.Code
		default:
			p.ErrorCode = code(errs[i])
		}
	}
	if top != nil {
		return Ready(resp)
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		if c := waitDurable(ctx, wait); c != 0 {
			for i, p := range out {
				if errs[i] == nil {
					p.ErrorCode = c
				}
			}
		}
		return resp
	}}
}
