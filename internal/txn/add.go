package txn

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
)

// AddPartitions adds partitions to the producer's transaction, opening
// one if none is open (AddPartitionsToTxn, and AddOffsetsToTxn with the
// group's __consumer_offsets partition). It returns once the new state is
// durable; while the previous transaction is still writing its markers it
// waits for them (settledThen).
func (c *Coordinator) AddPartitions(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, partitions []TopicPartition) error {
	return c.settledThen(ctx, func() error {
		return c.addPartitions(ctx, transactionalID, producerID, producerEpoch, partitions, clientV1)
	})
}

// addPartitions opens or extends a transaction; clientVersion is the
// transaction version of the client, recorded when a transaction opens.
func (c *Coordinator) addPartitions(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, partitions []TopicPartition, clientVersion int16) error {
	if transactionalID == "" {
		return kerr.InvalidRequest
	}
	c.mu.Lock()
	defer c.unlock()
	if err := c.unavailableLocked(transactionalID); err != nil {
		return err
	}
	m := c.txns[transactionalID]
	switch {
	case m == nil:
		return kerr.InvalidProducerIDMapping
	case m.pending:
		return kerr.ConcurrentTransactions
	case m.producerID != producerID:
		return kerr.InvalidProducerIDMapping
	case m.epoch != producerEpoch:
		return kerr.ProducerFenced
	case m.state.preparing():
		return kerr.ConcurrentTransactions
	case m.state == Ongoing && m.hasAll(partitions):
		return nil
	case m.state != Ongoing && !m.state.completed():
		return kerr.InvalidTxnState
	}
	now := c.nowMs()
	next := m.clone()
	if m.state.completed() {
		next.startMs = now
		next.partitions = map[TopicPartition]struct{}{}
		next.clientVersion = clientVersion
	}
	next.state, next.lastUpdateMs = Ongoing, now
	for _, tp := range partitions {
		next.partitions[tp] = struct{}{}
	}
	return c.transition(ctx, m, next)
}

func (m *txnMeta) hasAll(partitions []TopicPartition) bool {
	for _, tp := range partitions {
		if _, ok := m.partitions[tp]; !ok {
			return false
		}
	}
	return true
}

// VerifyPartitions says, partition by partition, whether each is in the
// producer's open transaction (AddPartitionsToTxn v4+ verifyOnly, and the
// check Produce makes before a transactional write, KIP-890 part 1). A
// partition not in it is TRANSACTION_ABORTABLE; an error for the whole
// transaction comes back as top, with perPartition nil.
func (c *Coordinator) VerifyPartitions(transactionalID string, producerID int64, producerEpoch int16, partitions []TopicPartition) (perPartition []error, top error) {
	if transactionalID == "" {
		return nil, kerr.InvalidRequest
	}
	c.mu.Lock()
	defer c.unlock()
	if err := c.unavailableLocked(transactionalID); err != nil {
		return nil, err
	}
	m := c.txns[transactionalID]
	switch {
	case m == nil, m.producerID != producerID:
		return nil, kerr.InvalidProducerIDMapping
	case m.epoch != producerEpoch:
		return nil, kerr.ProducerFenced
	case m.state.preparing():
		return nil, kerr.ConcurrentTransactions
	}
	perPartition = make([]error, len(partitions))
	for i, tp := range partitions {
		if _, ok := m.partitions[tp]; !ok || m.state != Ongoing {
			perPartition[i] = kerr.TransactionAbortable
		}
	}
	return perPartition, nil
}

// AppendInTransaction runs write (the append of a producer's
// transactional batch to tp) if the producer is the transactional id's
// current one and tp is in its open transaction (KIP-890 part 1
// verification, done in-process). It holds the coordinator's lock while
// write runs, so the transaction cannot move to PrepareCommit or
// PrepareAbort in between: every batch a transaction verified lands
// before its markers.
func (c *Coordinator) AppendInTransaction(transactionalID string, producerID int64, producerEpoch int16, tp TopicPartition, write func() error) error {
	if transactionalID == "" {
		return kerr.InvalidRequest
	}
	c.mu.Lock()
	defer c.unlock()
	if err := c.unavailableLocked(transactionalID); err != nil {
		return err
	}
	m := c.txns[transactionalID]
	switch {
	case m == nil, m.producerID != producerID:
		return kerr.InvalidProducerIDMapping
	case m.epoch != producerEpoch:
		return kerr.InvalidProducerEpoch
	case m.state.preparing() || m.pending && m.state != Ongoing:
		return kerr.NotEnoughReplicas
	case m.state != Ongoing:
		return kerr.InvalidTxnState
	}
	if _, ok := m.partitions[tp]; !ok {
		return kerr.InvalidTxnState
	}
	return write()
}
