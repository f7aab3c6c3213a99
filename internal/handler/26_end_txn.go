package handler

// EndTxn (key 26), versions 0–5.
//
//	v1: no change.
//	v2: PRODUCER_FENCED instead of INVALID_PRODUCER_EPOCH (KIP-588).
//	v3: flexible.
//	v4: no change (TRANSACTION_ABORTABLE, KIP-890 part 2).
//	v5: producer id and epoch in the response (transaction version 2).
//
// The coordinator writes PrepareCommit or PrepareAbort to
// __transaction_state and answers once it is durable; the markers and
// the Complete state follow in the background (internal/txn). v5 is a
// transaction version 2 client: the epoch is bumped by every commit and
// abort, and the answer carries the producer id and epoch to go on with.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(26, 0, 5, (*Broker).handleEndTxn) }

func (b *Broker) handleEndTxn(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.EndTxnRequest)
	v := r.Version()
	resp := kmsg.NewPtrEndTxnResponse()
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	tc := b.txns()
	if tc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		if v >= 5 {
			pe, err := tc.EndTxnV2(ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit)
			resp.ErrorCode = txnCode(err, v, 2)
			resp.ProducerID, resp.ProducerEpoch = pe.ProducerID, pe.ProducerEpoch
			return resp
		}
		err := tc.EndTxn(ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit)
		resp.ErrorCode = txnCode(err, v, 2)
		return resp
	}}
}
