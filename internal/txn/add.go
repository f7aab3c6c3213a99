package txn

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// AddPartitions adds partitions to the producer's transaction, opening
// one if none is open (AddPartitionsToTxn, and AddOffsetsToTxn with the
// group's __consumer_offsets partition). It returns once the new state is
// durable; while the previous transaction is still writing its markers it
// waits for them (settledThen).
func (c *Coordinator) AddPartitions(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, partitions []TopicPartition) error {
	return c.settledThen(ctx, transactionalID, func() error {
		return c.addPartitions(transactionalID, producerID, producerEpoch, partitions, clientV1)
	})
}

// addPartitions opens or extends a transaction; clientVersion is the
// transaction version of the client, recorded when a transaction opens.
func (c *Coordinator) addPartitions(transactionalID string, producerID int64, producerEpoch int16, partitions []TopicPartition, clientVersion int16) error {
	if transactionalID == "" {
		return kerr.InvalidRequest
	}
	_, err := write(c, transactionalID, func(s *stateShard) (coordinator.Result[struct{}], error) {
		return s.addPartitions(transactionalID, producerID, producerEpoch, partitions, clientVersion)
	})
	return err
}

func (s *stateShard) addPartitions(id string, producerID int64, producerEpoch int16, partitions []TopicPartition, clientVersion int16) (coordinator.Result[struct{}], error) {
	none := coordinator.Result[struct{}]{}
	m := s.txns[id]
	switch {
	case m == nil && s.writing(id):
		return none, kerr.ConcurrentTransactions
	case m == nil:
		return none, kerr.InvalidProducerIDMapping
	case s.writing(id):
		return none, kerr.ConcurrentTransactions
	case m.producerID != producerID:
		return none, kerr.InvalidProducerIDMapping
	case m.epoch != producerEpoch:
		return none, kerr.ProducerFenced
	case m.state.preparing():
		return none, kerr.ConcurrentTransactions
	case m.state == Ongoing && m.hasAll(partitions):
		return none, nil
	case m.state != Ongoing && !m.state.completed():
		return none, kerr.InvalidTxnState
	}
	now := s.ctx.Now().UnixMilli()
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
	return s.write(next), nil
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
	return read(c, transactionalID, kerr.InvalidProducerIDMapping, func(s *stateShard) ([]error, error) {
		m := s.txns[transactionalID]
		switch {
		case m == nil, m.producerID != producerID:
			return nil, kerr.InvalidProducerIDMapping
		case m.epoch != producerEpoch:
			return nil, kerr.ProducerFenced
		case m.state.preparing():
			return nil, kerr.ConcurrentTransactions
		}
		perPartition := make([]error, len(partitions))
		for i, tp := range partitions {
			if _, ok := m.partitions[tp]; !ok || m.state != Ongoing {
				perPartition[i] = kerr.TransactionAbortable
			}
		}
		return perPartition, nil
	})
}

// AppendInTransaction runs write (the append of a producer's
// transactional batch to tp) if the producer is the transactional id's
// current one and tp is in its open transaction (KIP-890 part 1
// verification, done in-process). The append runs outside the shard's
// lock, counted as a writer of the transaction: the transaction's markers
// wait until its writers are done, and a transaction that is prepared
// takes no new writer, so every batch a transaction verified lands before
// its markers.
func (c *Coordinator) AppendInTransaction(transactionalID string, producerID int64, producerEpoch int16, tp TopicPartition, write func() error) error {
	if transactionalID == "" {
		return kerr.InvalidRequest
	}
	w, err := read(c, transactionalID, kerr.InvalidProducerIDMapping, func(s *stateShard) (*sync.WaitGroup, error) {
		m := s.txns[transactionalID]
		switch {
		case m == nil, m.producerID != producerID:
			return nil, kerr.InvalidProducerIDMapping
		case m.epoch != producerEpoch:
			return nil, kerr.InvalidProducerEpoch
		case m.state.preparing() || s.writing(transactionalID) && m.state != Ongoing:
			return nil, kerr.NotEnoughReplicas
		case m.state != Ongoing:
			return nil, kerr.InvalidTxnState
		}
		if _, ok := m.partitions[tp]; !ok {
			return nil, kerr.InvalidTxnState
		}
		w := s.writers[transactionalID]
		if w == nil {
			w = &sync.WaitGroup{}
			s.writers[transactionalID] = w
		}
		w.Add(1)
		return w, nil
	})
	if err != nil {
		return err
	}
	defer w.Done()
	return write()
}
