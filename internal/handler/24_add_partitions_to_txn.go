package handler

// AddPartitionsToTxn (key 24), versions 0–5.
//
//	v1: no change.
//	v2: PRODUCER_FENCED instead of INVALID_PRODUCER_EPOCH (KIP-588).
//	v3: flexible.
//	v4: batched by transaction, verify_only (KIP-890 part 1): brokers
//	    ask the coordinator whether partitions are in a transaction.
//	v5: no change (TRANSACTION_ABORTABLE, KIP-890 part 2).
//
// A partition of an unknown topic is UNKNOWN_TOPIC_OR_PARTITION and the
// others of its transaction OPERATION_NOT_ATTEMPTED, as in Kafka; the
// rest get the coordinator's answer, given once the transaction's new
// state is durable in __transaction_state. A verify_only transaction is
// answered per partition from memory: NONE when the partition is in the
// producer's open transaction, TRANSACTION_ABORTABLE when not.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/txn"
)

func init() { register(24, 0, 5, (*Broker).handleAddPartitionsToTxn) }

// txnTopics is one transaction's partitions as the request names them.
type txnTopics struct {
	topics []string
	parts  [][]int32
}

// addTxnAnswer is one transaction's per-partition error codes, in the
// request's order.
type addTxnAnswer [][]int16

func (b *Broker) handleAddPartitionsToTxn(ctx context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AddPartitionsToTxnRequest)
	v := r.Version()
	resp := kmsg.NewPtrAddPartitionsToTxnResponse()
	if v < 4 {
		var tt txnTopics
		for _, t := range req.Topics {
			tt.topics, tt.parts = append(tt.topics, t.Topic), append(tt.parts, t.Partitions)
		}
		return Outcome{Later: func(ctx context.Context) kmsg.Response {
			ans := b.addPartitions(ctx, v, req.TransactionalID, req.ProducerID, req.ProducerEpoch, false, tt)
			for i, topic := range tt.topics {
				rt := kmsg.NewAddPartitionsToTxnResponseTopic()
				rt.Topic = topic
				for j, p := range tt.parts[i] {
					rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
					rp.Partition, rp.ErrorCode = p, ans[i][j]
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
			return resp
		}}
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		for _, rx := range req.Transactions {
			var tt txnTopics
			for _, t := range rx.Topics {
				tt.topics, tt.parts = append(tt.topics, t.Topic), append(tt.parts, t.Partitions)
			}
			ans := b.addPartitions(ctx, v, rx.TransactionalID, rx.ProducerID, rx.ProducerEpoch, rx.VerifyOnly, tt)
			out := kmsg.NewAddPartitionsToTxnResponseTransaction()
			out.TransactionalID = rx.TransactionalID
			for i, topic := range tt.topics {
				rt := kmsg.NewAddPartitionsToTxnResponseTransactionTopic()
				rt.Topic = topic
				for j, p := range tt.parts[i] {
					rp := kmsg.NewAddPartitionsToTxnResponseTransactionTopicPartition()
					rp.Partition, rp.ErrorCode = p, ans[i][j]
					rt.Partitions = append(rt.Partitions, rp)
				}
				out.Topics = append(out.Topics, rt)
			}
			resp.Transactions = append(resp.Transactions, out)
		}
		return resp
	}}
}

// addPartitions adds (or with verifyOnly, checks) one transaction's
// partitions; the error code of each.
func (b *Broker) addPartitions(ctx context.Context, v int16, id string, pid int64, epoch int16, verifyOnly bool, tt txnTopics) addTxnAnswer {
	ans := make(addTxnAnswer, len(tt.topics))
	all := func(c int16) addTxnAnswer {
		for i := range tt.topics {
			ans[i] = make([]int16, len(tt.parts[i]))
			for j := range ans[i] {
				ans[i][j] = c
			}
		}
		return ans
	}
	tc := b.txns()
	if tc == nil {
		return all(kerr.CoordinatorNotAvailable.Code)
	}
	img := b.image()
	var tps []txn.TopicPartition
	unknown := false
	codes := make([][]int16, len(tt.topics))
	for i, topic := range tt.topics {
		codes[i] = make([]int16, len(tt.parts[i]))
		t, ok := img.Topic(topic)
		for j, p := range tt.parts[i] {
			if !ok {
				codes[i][j], unknown = kerr.UnknownTopicOrPartition.Code, true
				continue
			}
			if _, ok := t.Partition(p); !ok {
				codes[i][j], unknown = kerr.UnknownTopicOrPartition.Code, true
				continue
			}
			tps = append(tps, txn.TopicPartition{Topic: topic, Partition: p})
		}
	}
	if unknown {
		for i := range codes {
			for j := range codes[i] {
				if codes[i][j] == 0 {
					codes[i][j] = kerr.OperationNotAttempted.Code
				}
			}
		}
		return codes
	}
	if verifyOnly {
		per, top := tc.VerifyPartitions(id, pid, epoch, tps)
		if top != nil {
			return all(txnCode(top, v, 2))
		}
		k := 0
		for i := range codes {
			for j := range codes[i] {
				codes[i][j] = txnCode(per[k], v, 2)
				k++
			}
		}
		return codes
	}
	return all(txnCode(tc.AddPartitions(ctx, id, pid, epoch, tps), v, 2))
}
