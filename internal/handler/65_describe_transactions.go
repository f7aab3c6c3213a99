package handler

// DescribeTransactions (key 65), version 0 (KIP-664).
//
// The state of each transactional id the coordinator knows: state name,
// timeout, start time of the open transaction (-1 for none), producer id
// and epoch, and the partitions of the transaction.
// TRANSACTIONAL_ID_NOT_FOUND for an id it does not know, INVALID_REQUEST
// for an empty one; an id answered with an error has its other fields at 0.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(65, 0, 0, (*Broker).handleDescribeTransactions) }

func (b *Broker) handleDescribeTransactions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeTransactionsRequest)
	resp := kmsg.NewPtrDescribeTransactionsResponse()
	tc := b.txns()
	for _, id := range req.TransactionalIDs {
		st := kmsg.NewDescribeTransactionsResponseTransactionState()
		st.TransactionalID = id
		// An id answered with an error keeps every other field at 0, as
		// Kafka's coordinator answers.
		switch {
		case tc == nil:
			st.ErrorCode = kerr.CoordinatorNotAvailable.Code
		case id == "":
			st.ErrorCode = kerr.InvalidRequest.Code
		}
		if st.ErrorCode != 0 {
			resp.TransactionStates = append(resp.TransactionStates, st)
			continue
		}
		d, err := tc.Describe(id)
		if err != nil {
			st.ErrorCode = txnCode(err, 0, 0)
			resp.TransactionStates = append(resp.TransactionStates, st)
			continue
		}
		st.State, st.TimeoutMillis, st.StartTimestamp = d.State.String(), d.TimeoutMs, d.StartMs
		st.ProducerID, st.ProducerEpoch = d.ProducerID, d.ProducerEpoch
		for i := 0; i < len(d.Partitions); {
			t := kmsg.NewDescribeTransactionsResponseTransactionStateTopic()
			t.Topic = d.Partitions[i].Topic
			for ; i < len(d.Partitions) && d.Partitions[i].Topic == t.Topic; i++ {
				t.Partitions = append(t.Partitions, d.Partitions[i].Partition)
			}
			st.Topics = append(st.Topics, t)
		}
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return Ready(resp)
}
