package handler

// InitProducerId (key 22), versions 0–5.
//
//	v1: no change.
//	v2: flexible.
//	v3: producer id and epoch in the request (KIP-360 epoch bumps).
//	v4: no change.
//	v5: keep_prepared_txn (KIP-939), for two-phase commit.
//
// Without a transactional id the producer is idempotent only: it gets a
// new producer id at epoch 0, as Kafka hands out, from blocks of ids
// reserved in the cluster metadata (ProducerIdsRecord).
//
// Not done yet: transactional ids are answered COORDINATOR_NOT_AVAILABLE
// until the transaction coordinator exists.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(22, 0, 5, (*Broker).handleInitProducerID) }

func (b *Broker) handleInitProducerID(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.InitProducerIDRequest)
	resp := kmsg.NewPtrInitProducerIDResponse()
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	if req.TransactionalID != nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	id, err := b.opts.ProducerIDs.Next()
	if err != nil {
		resp.ErrorCode = errorCode(err)
		return Ready(resp)
	}
	resp.ProducerID, resp.ProducerEpoch = id, 0
	return Ready(resp)
}
