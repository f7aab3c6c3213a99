package handler

// TxnOffsetCommit (key 28), versions 0–6.
//
//	v1: no change (KIP-98's first version, renumbered).
//	v2: leader epoch per partition.
//	v3: flexible; generation, member id and group.instance.id (KIP-447),
//	    checked like OffsetCommit's.
//	v4: no change (KIP-890 part 1: the server verifies the transaction).
//	v5: no change (KIP-890 part 2: transaction version 2 clients, whose
//	    commit adds the group's partition to the transaction).
//	v6: topics named by topic id, answered with it (KIP-1319); an unknown
//	    id is UNKNOWN_TOPIC_ID. A generation for a group that does not
//	    exist is GROUP_ID_NOT_FOUND and a consumer group's stale member
//	    epoch STALE_MEMBER_EPOCH (ILLEGAL_GENERATION before).
//
// The offsets are written to the group's __consumer_offsets partition in
// a transactional batch of the producer, and stay invisible to
// OffsetFetch until the transaction coordinator writes the commit marker
// and calls CompleteTransaction. A producer epoch older than the one the
// partition last saw is refused by the log (INVALID_PRODUCER_EPOCH).
// Answered once the batch is durable.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/txn"
)

func init() { register(28, 0, 6, (*Broker).handleTxnOffsetCommit) }

func (b *Broker) handleTxnOffsetCommit(ctx context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.TxnOffsetCommitRequest)
	v := r.Version()
	resp := kmsg.NewPtrTxnOffsetCommitResponse()
	tc := group.TxnCommitRequest{TransactionalID: req.TransactionalID, GroupID: req.Group,
		ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch, Generation: -1}
	if v >= 3 {
		tc.Generation, tc.MemberID, tc.InstanceID = req.Generation, req.MemberID, req.InstanceID
	}
	// out[i] is the answer for the i-th offset sent to the coordinator.
	var out []*kmsg.TxnOffsetCommitResponseTopicPartition
	img := b.image()
	resp.Topics = make([]kmsg.TxnOffsetCommitResponseTopic, len(req.Topics))
	for i, rt := range req.Topics {
		t := &resp.Topics[i]
		*t = kmsg.NewTxnOffsetCommitResponseTopic()
		t.Topic, t.TopicID = rt.Topic, rt.TopicID
		t.Partitions = make([]kmsg.TxnOffsetCommitResponseTopicPartition, len(rt.Partitions))
		topic, topicCode := offsetTopic(img, v >= 6, rt.Topic, rt.TopicID)
		for j, rp := range rt.Partitions {
			p := &t.Partitions[j]
			*p = kmsg.NewTxnOffsetCommitResponseTopicPartition()
			p.Partition = rp.Partition
			if p.ErrorCode = topicCode; topicCode == 0 {
				p.ErrorCode = offsetPartitionCode(topic, rp.Partition)
			}
			if p.ErrorCode != 0 {
				continue
			}
			epoch := int32(-1)
			if v >= 2 {
				epoch = rp.LeaderEpoch
			}
			tc.Offsets = append(tc.Offsets, group.OffsetToCommit{
				TopicPartition: group.TopicPartition{Topic: topic.Name, Partition: rp.Partition},
				Offset:         rp.Offset, LeaderEpoch: epoch, Metadata: rp.Metadata,
			})
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
	if len(tc.Offsets) == 0 {
		return Ready(resp)
	}
	if v >= 5 && b.transactionVersion2() && b.txns() != nil {
		// Transaction version 2 clients skip AddOffsetsToTxn: the commit
		// adds the group's partition to the transaction itself.
		tp := txn.TopicPartition{Topic: metadata.ConsumerOffsetsTopic, Partition: b.offsetsPartitionFor(req.Group)}
		if err := b.txns().AddPartitionsImplicit(ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, []txn.TopicPartition{tp}); err != nil {
			for _, p := range out {
				p.ErrorCode = txnCode(err, v, 0)
			}
			return Ready(resp)
		}
	}
	commit := gc.CommitTransactionalOffsets
	if v >= 6 {
		commit = gc.CommitTransactionalOffsetsV6
	}
	top, errs, wait := commit(tc)
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
