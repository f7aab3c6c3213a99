package txn

import (
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// stateShard is the transaction coordinator of one __transaction_state
// partition: the state of its transactional ids, changed only by
// replaying their records.
type stateShard struct {
	c   *Coordinator
	ctx *coordinator.Context
	// txns is the durable state of each transactional id.
	txns map[string]*txnMeta
	// created are the transactional ids InitProducerId is creating, whose
	// first record is not yet durable: as Kafka's TransactionCoordinator
	// puts a new id's metadata (Empty, epoch -1) in its cache before the
	// write, DescribeTransactions and ListTransactions show them as that.
	// A failed write reloads the shard, which forgets them.
	created map[string]*txnMeta
	// transit holds, per transactional id, what the state being written
	// keeps that its record does not (Kafka's TxnTransitMetadata): the
	// replay of the record at serve takes it. A record replayed at load
	// has none, as in Kafka.
	transit map[string]transit
	// completing are the prepared transactions whose markers are being
	// written.
	completing map[string]bool
	// writers are the transactional data appends in progress per
	// transactional id (AppendInTransaction); markers wait them out.
	writers map[string]*sync.WaitGroup
	// skipped counts the malformed records met at load.
	skipped int
}

// transit is the part of a transaction's state that its record does not
// carry at value version 0.
type transit struct {
	lastEpoch     int16
	lastProducer  int64
	nextProducer  int64
	clientVersion int16
}

func newStateShard(c *Coordinator, ctx *coordinator.Context) *stateShard {
	return &stateShard{c: c, ctx: ctx, txns: map[string]*txnMeta{}, created: map[string]*txnMeta{}, transit: map[string]transit{},
		completing: map[string]bool{}, writers: map[string]*sync.WaitGroup{}}
}

// write is the record that makes next the transactional id's state.
func (s *stateShard) write(next *txnMeta) coordinator.Result[struct{}] {
	s.transit[next.id] = transit{lastEpoch: next.lastEpoch, lastProducer: next.lastProducer,
		nextProducer: next.nextProducer, clientVersion: next.clientVersion}
	return coordinator.Result[struct{}]{Records: []coordinator.Record{{Key: EncodeKey(next.id), Value: EncodeValue(next.value())}}}
}

// described is the state DescribeTransactions and ListTransactions show
// for id: the durable one, or that of an id being created.
func (s *stateShard) described(id string) *txnMeta {
	if m := s.txns[id]; m != nil {
		return m
	}
	return s.created[id]
}

// writing reports whether a record of the transactional id is on its way:
// changes to it answer CONCURRENT_TRANSACTIONS until it lands or fails.
func (s *stateShard) writing(id string) bool { return s.ctx.Writing(EncodeKey(id)) }

// Replay applies one record: the last record of an id is its state, a
// tombstone forgets it. Malformed records are counted and skipped.
func (s *stateShard) Replay(e coordinator.Entry) error {
	if e.Marker {
		return nil
	}
	id, err := DecodeKey(e.Key)
	if err != nil {
		s.skipped++
		return nil
	}
	delete(s.created, id)
	if e.Value == nil {
		s.forget(id)
		return nil
	}
	v, err := DecodeValue(e.Value)
	if err != nil {
		s.skipped++
		return nil
	}
	if v.State == Dead || v.State == PrepareEpochFence {
		// Never written by Kafka's coordinator: only tombstones end an
		// id. An epoch fence is followed by PrepareAbort.
		s.forget(id)
		return nil
	}
	m := fromValue(id, v)
	if t, ok := s.transit[id]; ok {
		m.lastEpoch, m.lastProducer, m.nextProducer, m.clientVersion = t.lastEpoch, t.lastProducer, t.nextProducer, t.clientVersion
		delete(s.transit, id)
	}
	s.txns[id] = m
	if s.ctx.Loaded() { // at load, OnLoaded does it for each id's last state
		s.scheduleTimers(m)
		s.startCompletion(m)
	}
	return nil
}

func (s *stateShard) forget(id string) {
	delete(s.txns, id)
	delete(s.created, id)
	delete(s.transit, id)
	delete(s.completing, id)
	delete(s.writers, id)
	s.ctx.Cancel(abortTimer(id))
	s.ctx.Cancel(expiryTimer(id))
	s.ctx.Cancel(retryTimer(id))
}

// OnLoaded sets the timers of every transactional id and completes the
// transactions found prepared.
func (s *stateShard) OnLoaded() {
	for _, m := range s.txns {
		s.scheduleTimers(m)
		s.startCompletion(m)
	}
}

// OnUnloaded: the runtime has stopped the timers; calls out in progress
// find no shard and stop.
func (s *stateShard) OnUnloaded() {}

func abortTimer(id string) string  { return "abort/" + id }
func expiryTimer(id string) string { return "expire/" + id }
func retryTimer(id string) string  { return "complete/" + id }

// scheduleTimers sets the timers of m's state: an open transaction is
// aborted once its timeout has passed, and a transactional id with no
// open transaction is forgotten once idle for
// transactional.id.expiration.ms. Kafka scans for both every
// transaction.abort.timed.out.transaction.cleanup.interval.ms and
// transaction.remove.expired.transaction.cleanup.interval.ms; a keyed
// timer per id fires at the scan that would have found it, without a
// scan.
func (s *stateShard) scheduleTimers(m *txnMeta) {
	now := s.ctx.Now()
	id := m.id
	if m.state == Ongoing && m.startMs >= 0 {
		at := s.c.scanAfter(time.UnixMilli(m.startMs+int64(m.timeoutMs)), s.c.cfg.AbortTimedOutInterval)
		s.ctx.Schedule(abortTimer(id), at.Sub(now), func() ([]coordinator.Record, error) {
			return s.abortTimedOut(id), nil
		})
	} else {
		s.ctx.Cancel(abortTimer(id))
	}
	if m.state.completed() {
		at := s.c.scanAfter(time.UnixMilli(m.lastUpdateMs).Add(s.c.cfg.IDExpiration), s.c.cfg.RemoveExpiredInterval)
		s.ctx.Schedule(expiryTimer(id), at.Sub(now), func() ([]coordinator.Record, error) {
			return s.expire(id), nil
		})
	} else {
		s.ctx.Cancel(expiryTimer(id))
	}
}

// abortTimedOut aborts id's open transaction with an epoch bump, which
// fences its producer.
func (s *stateShard) abortTimedOut(id string) []coordinator.Record {
	m := s.txns[id]
	if m == nil || m.state != Ongoing {
		return nil
	}
	if s.writing(id) {
		// What lands decides; if it fails, look again.
		s.ctx.Schedule(abortTimer(id), completionRetry, func() ([]coordinator.Record, error) { return s.abortTimedOut(id), nil })
		return nil
	}
	s.c.logger.Info("aborting a timed-out transaction", "transactional.id", id,
		"producer.id", m.producerID, "producer.epoch", m.epoch)
	next := m.clone()
	next.fenceEpoch()
	next.state, next.lastUpdateMs = PrepareAbort, s.ctx.Now().UnixMilli()
	return s.write(next).Records
}

// expire forgets an idle transactional id (a tombstone).
func (s *stateShard) expire(id string) []coordinator.Record {
	m := s.txns[id]
	if m == nil || !m.state.completed() {
		return nil
	}
	if s.writing(id) || s.completing[id] {
		s.ctx.Schedule(expiryTimer(id), completionRetry, func() ([]coordinator.Record, error) { return s.expire(id), nil })
		return nil
	}
	delete(s.transit, id)
	return []coordinator.Record{{Key: EncodeKey(id)}}
}

// startCompletion starts writing m's markers and then its Complete state,
// outside the state machine, if m is prepared and no completion runs.
func (s *stateShard) startCompletion(m *txnMeta) {
	if !m.state.preparing() || s.completing[m.id] {
		return
	}
	s.completing[m.id] = true
	s.ctx.Cancel(retryTimer(m.id))
	id, p := m.id, s.ctx.Partition()
	s.ctx.Defer(func() { s.c.spawn(func() { s.c.complete(p, id) }) })
}

// completionFailed leaves id prepared, to be completed again after
// completionRetry.
func (s *stateShard) completionFailed(id string) {
	delete(s.completing, id)
	if s.txns[id] == nil {
		return
	}
	s.ctx.Schedule(retryTimer(id), completionRetry, func() ([]coordinator.Record, error) {
		if m := s.txns[id]; m != nil && !s.writing(id) {
			s.startCompletion(m)
		}
		return nil, nil
	})
}
