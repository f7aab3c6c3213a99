package txn

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/metadata"
)

// completionRetry is how long a transaction whose markers could not be
// written waits before Tick tries again.
const completionRetry = time.Second

// EndTxn commits or aborts the producer's transaction. It returns once
// PrepareCommit or PrepareAbort is durable; the markers and the Complete
// state follow in the background, and until they are written the
// transactional id answers CONCURRENT_TRANSACTIONS.
func (c *Coordinator) EndTxn(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, commit bool) error {
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
		return kerr.ProducerFenced
	case m.pending:
		return kerr.ConcurrentTransactions
	}
	switch m.state {
	case Ongoing:
		next := m.clone()
		next.state, next.lastUpdateMs = PrepareAbort, c.nowMs()
		if commit {
			next.state = PrepareCommit
		}
		if err := c.transition(ctx, m, next); err != nil {
			return err
		}
		c.startCompletion(m)
		return nil
	case CompleteCommit:
		if commit {
			return nil // a retry of an EndTxn that succeeded
		}
	case CompleteAbort:
		if !commit {
			return nil
		}
	case PrepareCommit:
		if commit {
			return kerr.ConcurrentTransactions
		}
	case PrepareAbort:
		if !commit {
			return kerr.ConcurrentTransactions
		}
	}
	return kerr.InvalidTxnState
}

// startCompletion queues the writing of m's markers and Complete state;
// the caller holds c.mu and releases it with unlock.
func (c *Coordinator) startCompletion(m *txnMeta) {
	if m.markersInFlight || !m.state.preparing() {
		return
	}
	m.markersInFlight = true
	id := m.id
	c.queued = append(c.queued, func() { c.complete(id) })
}

// complete writes the markers of a prepared transaction to each of its
// partitions, waits until they are durable, tells the group coordinator
// about __consumer_offsets, and then writes CompleteCommit or
// CompleteAbort. On a failure the transaction stays prepared and Tick
// tries again later; a second marker for the same transaction is
// harmless.
func (c *Coordinator) complete(id string) {
	c.mu.Lock()
	m := c.txns[id]
	if m == nil || !m.state.preparing() {
		if m != nil {
			m.markersInFlight = false
		}
		c.unlock()
		return
	}
	commit := m.state == PrepareCommit
	pid, epoch, version := m.producerID, m.epoch, int8(m.clientVersion)
	partitions := m.sortedPartitions()
	statePartition := c.PartitionFor(id)
	c.unlock()

	ctx := context.Background()
	offsets := false
	var waits []Durable
	fail := func(err error) {
		c.logger.Warn("writing transaction markers", "transactional.id", id, "err", err)
		c.mu.Lock()
		if m := c.txns[id]; m != nil {
			m.markersInFlight = false
			m.retryAt = c.clock.Now().Add(completionRetry)
		}
		c.signalSettled()
		c.unlock()
	}
	for _, tp := range partitions {
		if c.markers == nil {
			break
		}
		d, err := c.markers.WriteMarker(Marker{TopicPartition: tp, ProducerID: pid, ProducerEpoch: epoch,
			Commit: commit, StatePartition: statePartition, TransactionVersion: version})
		if errors.Is(err, ErrPartitionGone) || errors.Is(err, ErrMarkerFenced) {
			c.logger.Info("skipping a transaction marker", "transactional.id", id, "topic", tp.Topic,
				"partition", tp.Partition, "reason", err)
			continue
		}
		if err != nil {
			fail(err)
			return
		}
		waits = append(waits, d)
		offsets = offsets || tp.Topic == metadata.ConsumerOffsetsTopic
	}
	for _, d := range waits {
		if err := d(ctx); err != nil {
			fail(err)
			return
		}
	}
	if offsets && c.completeOffsets != nil {
		c.completeOffsets(pid, epoch, commit)
	}
	c.mu.Lock()
	defer c.unlock()
	m = c.txns[id]
	if m == nil || !m.state.preparing() || m.producerID != pid || m.epoch != epoch {
		if m != nil {
			m.markersInFlight = false
		}
		return
	}
	next := m.clone()
	next.state, next.lastUpdateMs = CompleteAbort, c.nowMs()
	if commit {
		next.state = CompleteCommit
	}
	next.partitions = map[TopicPartition]struct{}{}
	if m.nextProducer != noProducerID {
		// Transaction version 2 exhausted the epochs: the producer goes
		// on with the new producer id (KIP-890).
		next.lastProducer, next.producerID, next.epoch = m.producerID, m.nextProducer, 0
		next.nextProducer = noProducerID
	}
	err := c.transition(ctx, m, next)
	m.markersInFlight = false
	if err != nil {
		m.retryAt = c.clock.Now().Add(completionRetry)
	}
}
