package txn

import (
	"context"
	"math"

	"github.com/twmb/franz-go/pkg/kerr"
)

// InitRequest is InitProducerId with a transactional id.
type InitRequest struct {
	TransactionalID string
	TimeoutMs       int32
	// ProducerID and ProducerEpoch are the producer's current ones
	// (KIP-360, v3+), or -1 when it has none.
	ProducerID    int64
	ProducerEpoch int16
}

// ProducerIDAndEpoch is what InitProducerId answers.
type ProducerIDAndEpoch struct {
	ProducerID    int64
	ProducerEpoch int16
}

// InitProducerID gives a transactional producer its producer id and a new
// epoch, which fences every older instance of it. An open transaction is
// aborted first (with an epoch bump the client never sees) and the
// client asked to retry, as Kafka does.
func (c *Coordinator) InitProducerID(ctx context.Context, req InitRequest) (ProducerIDAndEpoch, error) {
	none := ProducerIDAndEpoch{ProducerID: -1, ProducerEpoch: -1}
	if req.TransactionalID == "" || (req.ProducerID == noProducerID) != (req.ProducerEpoch == noEpoch) {
		return none, kerr.InvalidRequest
	}
	if req.TimeoutMs <= 0 || int64(req.TimeoutMs) > c.cfg.MaxTimeout.Milliseconds() {
		return none, kerr.InvalidTransactionTimeout
	}
	if err := c.EnsureStorage(); err != nil {
		c.logger.Warn("creating the transaction state topic", "err", err)
		return none, errNotAvailable
	}
	c.mu.Lock()
	defer c.unlock()
	if err := c.unavailableLocked(req.TransactionalID); err != nil {
		return none, err
	}
	m := c.txns[req.TransactionalID]
	if m == nil {
		pid, err := c.pids.Next()
		if err != nil {
			return none, errNotAvailable
		}
		m = newTxnMeta(req.TransactionalID, pid, req.TimeoutMs, c.nowMs())
		c.txns[req.TransactionalID] = m
	}
	expected := req.ProducerID != noProducerID
	if m.pending {
		return none, kerr.ConcurrentTransactions
	}
	if expected && !m.validProducerID(req.ProducerID, req.ProducerEpoch) {
		return none, kerr.ProducerFenced
	}
	switch {
	case m.state.preparing():
		return none, kerr.ConcurrentTransactions
	case m.state == Ongoing:
		// Fence the current producer and abort its transaction; the
		// client retries and gets a second bump once the abort is done.
		if err := c.fenceAndAbort(ctx, m); err != nil {
			return none, err
		}
		return none, kerr.ConcurrentTransactions
	case !m.state.completed():
		return none, kerr.ConcurrentTransactions
	}
	next := m.clone()
	if m.epochExhausted() && (!expected || req.ProducerEpoch == m.epoch) {
		pid, err := c.pids.Next()
		if err != nil {
			return none, errNotAvailable
		}
		next.lastProducer, next.producerID, next.epoch = m.producerID, pid, 0
		next.lastEpoch = noEpoch
		if expected {
			next.lastEpoch = m.epoch
		}
	} else {
		switch {
		case !expected:
			next.epoch, next.lastEpoch = m.epoch+1, noEpoch
		case m.epoch == noEpoch || req.ProducerEpoch == m.epoch:
			next.epoch, next.lastEpoch = m.epoch+1, m.epoch
		case req.ProducerEpoch == m.lastEpoch:
			// A retry of a bump whose answer was lost: the same epoch.
		default:
			return none, kerr.ProducerFenced
		}
	}
	next.state, next.timeoutMs = Empty, req.TimeoutMs
	next.partitions = map[TopicPartition]struct{}{}
	next.startMs, next.lastUpdateMs = -1, c.nowMs()
	if err := c.transition(ctx, m, next); err != nil {
		return none, err
	}
	return ProducerIDAndEpoch{ProducerID: m.producerID, ProducerEpoch: m.epoch}, nil
}

// validProducerID is Kafka's check of the producer id a KIP-360 client
// sends: the current one, any for a new transactional id, or the one
// before a rotation when this is the retry of that rotation.
func (m *txnMeta) validProducerID(pid int64, epoch int16) bool {
	return m.epoch == noEpoch || pid == m.producerID ||
		(pid == m.lastProducer && epoch >= math.MaxInt16-1)
}

// fenceAndAbort bumps the epoch of m's open transaction and aborts it
// (PrepareAbort, then markers and CompleteAbort in the background). The
// caller holds c.mu.
func (c *Coordinator) fenceAndAbort(ctx context.Context, m *txnMeta) error {
	next := m.clone()
	next.fenceEpoch()
	next.state, next.lastUpdateMs = PrepareAbort, c.nowMs()
	if err := c.transition(ctx, m, next); err != nil {
		return err
	}
	c.startCompletion(m)
	return nil
}

// fenceEpoch bumps the epoch of a transaction that is aborted for its
// producer (a new instance, or a timeout), so the old instance is fenced.
// A transaction version 2 producer expects its own EndTxn to bump the
// epoch once, so it is bumped twice: the old instance's late commit then
// finds PRODUCER_FENCED rather than a retry of a finished transaction.
func (m *txnMeta) fenceEpoch() {
	bump := int16(1)
	if m.clientVersion >= 2 {
		bump = 2
	}
	m.epoch = int16(min(int32(m.epoch)+int32(bump), math.MaxInt16))
	m.lastEpoch = noEpoch
}
