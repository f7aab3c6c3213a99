package txn

import (
	"context"
	"errors"
	"math"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
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

var noProducer = ProducerIDAndEpoch{ProducerID: -1, ProducerEpoch: -1}

// errNeedProducerID asks the caller of an operation for a new producer id
// and to run it again: ids are reserved from the metadata log, which is
// not written from inside a shard.
var errNeedProducerID = errors.New("txn: a new producer id is needed")

// withProducerID runs attempt with no new producer id and, when it asks
// for one, reserves one and runs it again.
func (c *Coordinator) withProducerID(attempt func(newPID int64) error) error {
	err := attempt(noProducerID)
	if !errors.Is(err, errNeedProducerID) {
		return err
	}
	pid, perr := c.pids.Next()
	if perr != nil {
		return errNotAvailable
	}
	return attempt(pid)
}

// answer is an operation's answer, given once its records are durable.
type answer struct {
	pe  ProducerIDAndEpoch
	err error
}

// InitProducerID gives a transactional producer its producer id and a new
// epoch, which fences every older instance of it. An open transaction is
// aborted first (with an epoch bump the client never sees) and the
// client asked to retry, as Kafka does.
func (c *Coordinator) InitProducerID(ctx context.Context, req InitRequest) (ProducerIDAndEpoch, error) {
	if req.TransactionalID == "" || (req.ProducerID == noProducerID) != (req.ProducerEpoch == noEpoch) {
		return noProducer, kerr.InvalidRequest
	}
	if req.TimeoutMs <= 0 || int64(req.TimeoutMs) > c.cfg.MaxTimeout.Milliseconds() {
		return noProducer, kerr.InvalidTransactionTimeout
	}
	if err := c.EnsureStorage(); err != nil {
		c.logger.Warn("creating the transaction state topic", "err", err)
		return noProducer, errNotAvailable
	}
	var out answer
	err := c.withProducerID(func(newPID int64) (err error) {
		out, err = write(c, req.TransactionalID, func(s *stateShard) (coordinator.Result[answer], error) {
			return s.initProducerID(req, newPID)
		})
		return err
	})
	if err == nil {
		err = out.err
	}
	if err != nil {
		return noProducer, err
	}
	return out.pe, nil
}

func (s *stateShard) initProducerID(req InitRequest, newPID int64) (coordinator.Result[answer], error) {
	none := coordinator.Result[answer]{}
	if s.writing(req.TransactionalID) {
		return none, kerr.ConcurrentTransactions
	}
	m := s.txns[req.TransactionalID]
	creating := m == nil
	if creating {
		if newPID == noProducerID {
			return none, errNeedProducerID
		}
		m = newTxnMeta(req.TransactionalID, newPID, req.TimeoutMs, s.ctx.Now().UnixMilli())
		newPID = noProducerID
	}
	expected := req.ProducerID != noProducerID
	if expected && !m.validProducerID(req.ProducerID, req.ProducerEpoch) {
		return none, kerr.ProducerFenced
	}
	switch {
	case m.state.preparing():
		return none, kerr.ConcurrentTransactions
	case m.state == Ongoing:
		// Fence the current producer and abort its transaction; the
		// client retries and gets a second bump once the abort is done.
		next := m.clone()
		next.fenceEpoch()
		next.state, next.lastUpdateMs = PrepareAbort, s.ctx.Now().UnixMilli()
		return withAnswer(s.write(next), answer{pe: noProducer, err: kerr.ConcurrentTransactions}), nil
	case !m.state.completed():
		return none, kerr.ConcurrentTransactions
	}
	next := m.clone()
	if m.epochExhausted() && (!expected || req.ProducerEpoch == m.epoch) {
		if newPID == noProducerID {
			return none, errNeedProducerID
		}
		next.lastProducer, next.producerID, next.epoch = m.producerID, newPID, 0
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
	next.startMs, next.lastUpdateMs = -1, s.ctx.Now().UnixMilli()
	if creating {
		s.created[req.TransactionalID] = m
	}
	return withAnswer(s.write(next), answer{pe: ProducerIDAndEpoch{ProducerID: next.producerID, ProducerEpoch: next.epoch}}), nil
}

func withAnswer[T any](r coordinator.Result[struct{}], response T) coordinator.Result[T] {
	return coordinator.Result[T]{Records: r.Records, Response: response}
}

// validProducerID is Kafka's check of the producer id a KIP-360 client
// sends: the current one, any for a new transactional id, or the one
// before a rotation when this is the retry of that rotation.
func (m *txnMeta) validProducerID(pid int64, epoch int16) bool {
	return m.epoch == noEpoch || pid == m.producerID ||
		(pid == m.lastProducer && epoch >= math.MaxInt16-1)
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
