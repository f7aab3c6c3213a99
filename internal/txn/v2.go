package txn

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Transaction version 2 (KIP-890 part 2): every commit or abort bumps the
// producer's epoch, so a marker of an earlier transaction (written with
// the earlier epoch) cannot touch a later one, and the partitions of a
// transaction are added by the broker as the producer writes to them
// (Produce v12, TxnOffsetCommit v5) instead of by AddPartitionsToTxn.
// EndTxn v5 marks a version 2 client.
//
// EndTxn answers, by state and by the epoch the producer sends (the
// current one, or the one before it for a retry of an EndTxn that bumped
// it):
//
//	                 abort            commit
//	                 retry  current   retry  current
//	Empty            FENCED bump      FENCED INVALID_TXN_STATE
//	CompleteAbort    NONE   bump      ITS    INVALID_TXN_STATE
//	CompleteCommit   ITS    bump      NONE   INVALID_TXN_STATE
//
// An abort from Empty or a completed state writes PrepareAbort with no
// partitions: the client may not know whether its transaction began.

// The transaction versions of clients: 1 before KIP-890 part 2, 2 with.
const (
	clientV1 = 1
	clientV2 = 2
)

// EndTxnV2 is EndTxn for a transaction version 2 client (EndTxn v5). It
// returns the producer id and epoch the producer goes on with.
func (c *Coordinator) EndTxnV2(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, commit bool) (ProducerIDAndEpoch, error) {
	if transactionalID == "" {
		return noProducer, kerr.InvalidRequest
	}
	var out answer
	err := c.withProducerID(func(newPID int64) (err error) {
		out, err = write(c, transactionalID, func(s *stateShard) (coordinator.Result[answer], error) {
			return s.endTxnV2(transactionalID, producerID, producerEpoch, commit, newPID)
		})
		return err
	})
	if err != nil {
		return noProducer, err
	}
	return out.pe, nil
}

func (s *stateShard) endTxnV2(id string, producerID int64, producerEpoch int16, commit bool, newPID int64) (coordinator.Result[answer], error) {
	none := coordinator.Result[answer]{}
	m := s.txns[id]
	if m == nil {
		if s.writing(id) {
			return none, kerr.ConcurrentTransactions
		}
		return none, kerr.InvalidProducerIDMapping
	}
	retryOnOverflow := m.lastProducer == producerID && producerEpoch == math.MaxInt16-1 && m.epoch == 0
	retryOnBump := int32(m.epoch) == int32(producerEpoch)+1
	if m.producerID != producerID && !retryOnOverflow {
		return none, kerr.InvalidProducerIDMapping
	}
	var valid bool
	switch {
	case m.state.preparing():
		valid = retryOnBump
	case m.state == CompleteCommit || m.state == CompleteAbort:
		valid = retryOnBump || retryOnOverflow || producerEpoch == m.epoch
	default:
		valid = producerEpoch == m.epoch
	}
	// While a transition is in flight (a write, or the markers of a
	// prepared commit or abort) every EndTxn is asked to retry, before
	// its epoch is judged: the client of the EndTxn that prepared it has
	// the bumped epoch and may already send the next one (an empty
	// abort), which must not be fenced. Kafka checks in this order since
	// KAFKA-18464.
	if s.writing(id) || m.state.preparing() {
		return none, kerr.ConcurrentTransactions
	}
	if !valid || m.epoch == math.MaxInt16 {
		return none, kerr.ProducerFenced
	}
	current := coordinator.Result[answer]{Response: answer{pe: ProducerIDAndEpoch{ProducerID: m.producerID, ProducerEpoch: m.epoch}}}
	retry := retryOnBump || retryOnOverflow
	switch m.state {
	case Ongoing:
		return s.prepareV2(m, commit, newPID)
	case CompleteCommit, CompleteAbort:
		committed := m.state == CompleteCommit
		switch {
		case retry && commit == committed:
			return current, nil
		case !commit && !retry:
			return s.prepareV2(m, false, newPID)
		}
	case Empty:
		if !commit {
			return s.prepareV2(m, false, newPID)
		}
	}
	return none, kerr.InvalidTxnState
}

// prepareV2 writes PrepareCommit or PrepareAbort with the epoch bumped,
// and a new producer id to move to when the epochs run out.
func (s *stateShard) prepareV2(m *txnMeta, commit bool, newPID int64) (coordinator.Result[answer], error) {
	now := s.ctx.Now().UnixMilli()
	next := m.clone()
	if m.epochExhausted() {
		if newPID == noProducerID {
			return coordinator.Result[answer]{}, errNeedProducerID
		}
		next.nextProducer = newPID
	}
	next.epoch, next.lastEpoch = m.epoch+1, m.epoch
	next.clientVersion = clientV2
	next.state, next.lastUpdateMs = PrepareAbort, now
	if commit {
		next.state = PrepareCommit
	}
	if m.state != Ongoing {
		// Aborting a transaction that may not have begun.
		next.partitions = map[TopicPartition]struct{}{}
		next.startMs = now
	}
	out := ProducerIDAndEpoch{ProducerID: next.producerID, ProducerEpoch: next.epoch}
	if next.nextProducer != noProducerID {
		out = ProducerIDAndEpoch{ProducerID: next.nextProducer, ProducerEpoch: 0}
	}
	return withAnswer(s.write(next), answer{pe: out}), nil
}

// AddPartitionsImplicit adds partitions to the producer's transaction on
// its behalf, for a transaction version 2 producer that writes to them
// (Produce v12, TxnOffsetCommit v5) without AddPartitionsToTxn. It opens a
// transaction if none is open, and returns once the state is durable.
func (c *Coordinator) AddPartitionsImplicit(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, partitions []TopicPartition) error {
	return c.settledThen(ctx, transactionalID, func() error {
		return c.addPartitions(transactionalID, producerID, producerEpoch, partitions, clientV2)
	})
}

// settledThen runs attempt, and while it answers CONCURRENT_TRANSACTIONS
// waits for a state write of the transactional id's partition to settle
// and runs it again, up to Config.AddPartitionsWait. A producer begins
// its next transaction as soon as EndTxn answers, usually before the
// markers of the last one are written; waiting here spares it a round of
// client back-off (Kafka's brokers retry such adds too).
func (c *Coordinator) settledThen(ctx context.Context, transactionalID string, attempt func() error) error {
	if c.cfg.AddPartitionsWait < 0 {
		return attempt()
	}
	timer := time.NewTimer(c.cfg.AddPartitionsWait)
	defer timer.Stop()
	for {
		settled := c.settled(transactionalID)
		err := attempt()
		if !errors.Is(err, kerr.ConcurrentTransactions) || settled == nil {
			return err
		}
		select {
		case <-settled:
		case <-ctx.Done():
			return err
		case <-timer.C:
			return err
		}
	}
}
