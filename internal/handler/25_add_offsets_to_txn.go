package handler

// AddOffsetsToTxn (key 25), versions 0–4.
//
//	v1: no change.
//	v2: PRODUCER_FENCED instead of INVALID_PRODUCER_EPOCH (KIP-588).
//	v3: flexible.
//	v4: no change (TRANSACTION_ABORTABLE, KIP-890 part 2).
//
// Adds the group's partition of __consumer_offsets to the producer's
// transaction, so that its commit marker publishes the offsets
// TxnOffsetCommit wrote there. Answered once the state is durable.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/txn"
)

func init() { register(25, 0, 4, (*Broker).handleAddOffsetsToTxn) }

func (b *Broker) handleAddOffsetsToTxn(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AddOffsetsToTxnRequest)
	v := r.Version()
	resp := kmsg.NewPtrAddOffsetsToTxnResponse()
	tc := b.txns()
	if tc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	tp := txn.TopicPartition{Topic: metadata.ConsumerOffsetsTopic, Partition: b.offsetsPartitionFor(req.Group)}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		err := tc.AddPartitions(ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, []txn.TopicPartition{tp})
		resp.ErrorCode = txnCode(err, v, 2)
		return resp
	}}
}
