package handler

// TxnOffsetCommit (key 28), versions 0–6.
//
//	v1: no change (KIP-98's first version, renumbered).
//	v2: leader epoch per partition.
//	v3: flexible; generation, member id and group.instance.id (KIP-447),
//	    checked like OffsetCommit's.
//	v4: no change (KIP-890 part 1: the server verifies the transaction;
//	    a group partition not in it is TRANSACTION_ABORTABLE, where
//	    v0–3 are answered INVALID_TXN_STATE).
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
	"errors"

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
		topic, topicCode := requestTopic(img, v >= 6, rt.Topic, rt.TopicID)
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
	commit := gc.CommitTransactionalOffsets
	if v >= 6 {
		commit = gc.CommitTransactionalOffsetsV6
	}
	var top *kerr.Error
	var errs []*kerr.Error
	var wait group.Durable
	if tcErr := b.commitInTransaction(ctx, req, v, func() { top, errs, wait = commit(tc) }); tcErr != 0 {
		for _, p := range out {
			p.ErrorCode = tcErr
		}
		return Ready(resp)
	}
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

// commitInTransaction runs commit, the write of a TxnOffsetCommit's
// offsets, once the transaction coordinator has verified that the group's
// __consumer_offsets partition is in the producer's open transaction, as
// Kafka's coordinator runtime verifies before a transactional write
// (transaction version 2 clients at v5+ add the partition instead). It
// answers the error code for every offset when the write must not happen.
// commit runs under the transaction coordinator's lock, so the
// transaction cannot start to commit or abort between the check and the
// write, and the offsets land before its marker.
func (b *Broker) commitInTransaction(ctx context.Context, req *kmsg.TxnOffsetCommitRequest, v int16, commit func()) int16 {
	tc := b.txns()
	if tc == nil || req.Group == "" { // the group coordinator refuses an empty id first
		commit()
		return 0
	}
	tp := txn.TopicPartition{Topic: metadata.ConsumerOffsetsTopic, Partition: b.offsetsPartitionFor(req.Group)}
	if v >= 5 && b.transactionVersion2() {
		if err := tc.AddPartitionsImplicit(ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, []txn.TopicPartition{tp}); err != nil {
			return txnCode(err, v, 0)
		}
	} else if per, top := tc.VerifyPartitions(req.TransactionalID, req.ProducerID, req.ProducerEpoch, []txn.TopicPartition{tp}); top != nil {
		return unverifiedCode(top, v)
	} else if per[0] != nil {
		return unverifiedCode(per[0], v)
	}
	err := tc.AppendInTransaction(req.TransactionalID, req.ProducerID, req.ProducerEpoch, tp, func() error {
		commit()
		return nil
	})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, kerr.InvalidTxnState):
		// The transaction ended between the check and the write.
		return unverifiedCode(kerr.TransactionAbortable, v)
	case errors.Is(err, kerr.NotEnoughReplicas):
		// It started to commit or abort in between.
		return kerr.ConcurrentTransactions.Code
	}
	return unverifiedCode(err, v)
}

// unverifiedCode is the answer to a failed verification, as Kafka's
// AddPartitionsToTxnManager passes it on: a fenced producer is
// INVALID_PRODUCER_EPOCH, and TRANSACTION_ABORTABLE, which clients before
// TxnOffsetCommit v4 do not know, INVALID_TXN_STATE for them.
func unverifiedCode(err error, v int16) int16 {
	switch {
	case errors.Is(err, kerr.ProducerFenced):
		return kerr.InvalidProducerEpoch.Code
	case errors.Is(err, kerr.TransactionAbortable) && v < 4:
		return kerr.InvalidTxnState.Code
	}
	return txnCode(err, v, 0)
}
