package handler

// InitProducerId (key 22), versions 0–5.
//
//	v1: no change.
//	v2: flexible.
//	v3: producer id and epoch in the request (KIP-360 epoch bumps).
//	v4: PRODUCER_FENCED instead of INVALID_PRODUCER_EPOCH (KIP-588).
//	v5: keep_prepared_txn (KIP-939), for two-phase commit.
//
// Without a transactional id the producer is idempotent only: it gets a
// new producer id at epoch 0, as Kafka hands out, from blocks of ids
// reserved in the cluster metadata (ProducerIdsRecord). With one, the
// transaction coordinator answers (internal/txn): the id's producer id
// and a bumped epoch that fences older instances, once the new state is
// in __transaction_state (created on first use).
//
// Not done: keep_prepared_txn (two-phase commit, KIP-939) is ignored.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/txn"
)

func init() { register(22, 0, 5, (*Broker).handleInitProducerID) }

func (b *Broker) handleInitProducerID(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.InitProducerIDRequest)
	resp := kmsg.NewPtrInitProducerIDResponse()
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	if req.TransactionalID != nil {
		return b.initTransactionalProducer(r.Version(), req, resp)
	}
	id, err := b.opts.ProducerIDs.Next()
	if err != nil {
		resp.ErrorCode = errorCode(err)
		return Ready(resp)
	}
	resp.ProducerID, resp.ProducerEpoch = id, 0
	return Ready(resp)
}

func (b *Broker) initTransactionalProducer(v int16, req *kmsg.InitProducerIDRequest, resp *kmsg.InitProducerIDResponse) Outcome {
	tc := b.txns()
	if tc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	ir := txn.InitRequest{TransactionalID: *req.TransactionalID, TimeoutMs: req.TransactionTimeoutMillis,
		ProducerID: -1, ProducerEpoch: -1}
	if v >= 3 {
		ir.ProducerID, ir.ProducerEpoch = req.ProducerID, req.ProducerEpoch
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		res, err := tc.InitProducerID(ctx, ir)
		resp.ErrorCode = txnCode(err, v, 4)
		if err == nil {
			resp.ProducerID, resp.ProducerEpoch = res.ProducerID, res.ProducerEpoch
		}
		return resp
	}}
}
