package txn

import "context"

// VerifyRequest asks the transaction coordinator about partitions a
// producer is about to write transactionally: AddPartitionsToTxn v4+
// with verify_only, or, for a transaction version 2 producer (Add), the
// add itself (KIP-890).
type VerifyRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Partitions      []TopicPartition
	// Add adds the partitions to the transaction on the producer's
	// behalf rather than checking that they were added.
	Add bool
}

// Verifier is how the data path asks the transaction coordinator, before
// a transaction's first write to a partition, whether the partition is in
// the producer's open transaction, as Kafka's AddPartitionsToTxnManager
// sends AddPartitionsToTxn to the coordinator (which may be another
// broker). It answers per partition (nil: verified; TRANSACTION_ABORTABLE:
// not in the transaction), or with top for every partition (the
// producer's id or epoch is wrong, the transaction is ending, or the
// coordinator cannot be reached). The partition's log guards against the
// transaction ending between the answer and the write
// (klog.StartTransactionVerification), so the coordinator's state machine
// never waits on a data append.
type Verifier interface {
	VerifyTransaction(ctx context.Context, req VerifyRequest) (perPartition []error, top error)
}

// VerifyTransaction answers for the partitions of this coordinator's
// transactional ids: the local Verifier.
func (c *Coordinator) VerifyTransaction(ctx context.Context, req VerifyRequest) ([]error, error) {
	if req.Add {
		if err := c.AddPartitionsImplicit(ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Partitions); err != nil {
			return nil, err
		}
		return make([]error, len(req.Partitions)), nil
	}
	return c.VerifyPartitions(req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Partitions)
}
