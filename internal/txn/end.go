package txn

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
	"github.com/karst-broker/karst/internal/metadata"
)

// completionRetry is how long a transaction whose markers could not be
// written waits before they are tried again.
const completionRetry = time.Second

// EndTxn commits or aborts the producer's transaction. It returns once
// PrepareCommit or PrepareAbort is durable; the markers and the Complete
// state follow as calls out of the state machine, and until they are
// written the transactional id answers CONCURRENT_TRANSACTIONS.
func (c *Coordinator) EndTxn(ctx context.Context, transactionalID string, producerID int64, producerEpoch int16, commit bool) error {
	if transactionalID == "" {
		return kerr.InvalidRequest
	}
	_, err := write(c, transactionalID, func(s *stateShard) (coordinator.Result[struct{}], error) {
		return s.endTxn(transactionalID, producerID, producerEpoch, commit)
	})
	return err
}

func (s *stateShard) endTxn(id string, producerID int64, producerEpoch int16, commit bool) (coordinator.Result[struct{}], error) {
	none := coordinator.Result[struct{}]{}
	m := s.txns[id]
	switch {
	case m == nil && s.writing(id):
		return none, kerr.ConcurrentTransactions
	case m == nil, m.producerID != producerID:
		return none, kerr.InvalidProducerIDMapping
	case m.epoch != producerEpoch:
		return none, kerr.ProducerFenced
	case s.writing(id):
		return none, kerr.ConcurrentTransactions
	}
	switch m.state {
	case Ongoing:
		next := m.clone()
		next.state, next.lastUpdateMs = PrepareAbort, s.ctx.Now().UnixMilli()
		if commit {
			next.state = PrepareCommit
		}
		return s.write(next), nil
	case CompleteCommit:
		if commit {
			return none, nil // a retry of an EndTxn that succeeded
		}
	case CompleteAbort:
		if !commit {
			return none, nil
		}
	case PrepareCommit:
		if commit {
			return none, kerr.ConcurrentTransactions
		}
	case PrepareAbort:
		if !commit {
			return none, kerr.ConcurrentTransactions
		}
	}
	return none, kerr.InvalidTxnState
}

// completion is what writing a prepared transaction's markers needs.
type completion struct {
	commit     bool
	producerID int64
	epoch      int16
	version    int8
	partitions []TopicPartition
	// writers are the transaction's data appends still in progress.
	writers *sync.WaitGroup
}

// complete writes the markers of a prepared transaction to each of its
// partitions, waits until they are durable, tells the group coordinator
// about __consumer_offsets, and then writes CompleteCommit or
// CompleteAbort. On a failure the transaction stays prepared and is
// completed again after completionRetry; a second marker for the same
// transaction is harmless.
func (c *Coordinator) complete(p int32, id string) {
	var job *completion
	if err := c.update(p, func(s *stateShard) {
		m := s.txns[id]
		if m == nil || !m.state.preparing() {
			delete(s.completing, id)
			return
		}
		job = &completion{commit: m.state == PrepareCommit, producerID: m.producerID, epoch: m.epoch,
			version: int8(m.clientVersion), partitions: m.sortedPartitions(), writers: s.writers[id]}
	}); err != nil || job == nil {
		return // unloaded, or nothing left to do
	}
	if job.writers != nil {
		job.writers.Wait()
	}
	if err := c.writeMarkers(p, id, job); err != nil {
		c.logger.Warn("writing transaction markers", "transactional.id", id, "err", err)
		c.update(p, func(s *stateShard) { s.completionFailed(id) })
		return
	}
	_, err := write(c, id, func(s *stateShard) (coordinator.Result[struct{}], error) {
		delete(s.completing, id)
		m := s.txns[id]
		if m == nil || !m.state.preparing() || m.producerID != job.producerID || m.epoch != job.epoch || s.writing(id) {
			return coordinator.Result[struct{}]{}, nil
		}
		next := m.clone()
		next.state, next.lastUpdateMs = CompleteAbort, s.ctx.Now().UnixMilli()
		if job.commit {
			next.state = CompleteCommit
		}
		next.partitions = map[TopicPartition]struct{}{}
		if m.nextProducer != noProducerID {
			// Transaction version 2 exhausted the epochs: the producer
			// goes on with the new producer id (KIP-890).
			next.lastProducer, next.producerID, next.epoch = m.producerID, m.nextProducer, 0
			next.nextProducer = noProducerID
		}
		return s.write(next), nil
	})
	if err != nil && !errors.Is(err, kerr.NotCoordinator) {
		c.update(p, func(s *stateShard) { s.completionFailed(id) })
	}
}

// writeMarkers writes job's markers and waits until they are durable,
// then tells the group coordinator when __consumer_offsets had one.
func (c *Coordinator) writeMarkers(p int32, id string, job *completion) error {
	if c.markers == nil {
		return nil
	}
	markers := make([]Marker, len(job.partitions))
	for i, tp := range job.partitions {
		markers[i] = Marker{TopicPartition: tp, ProducerID: job.producerID, ProducerEpoch: job.epoch,
			Commit: job.commit, StatePartition: p, TransactionVersion: job.version}
	}
	offsets := false
	for i, err := range c.markers.WriteMarkers(context.Background(), markers) {
		tp := markers[i].TopicPartition
		switch {
		case errors.Is(err, ErrPartitionGone) || errors.Is(err, ErrMarkerFenced):
			c.logger.Info("skipping a transaction marker", "transactional.id", id, "topic", tp.Topic,
				"partition", tp.Partition, "reason", err)
		case err != nil:
			return err
		default:
			offsets = offsets || tp.Topic == metadata.ConsumerOffsetsTopic
		}
	}
	if offsets && c.completeOffsets != nil {
		c.completeOffsets(job.producerID, job.epoch, job.commit)
	}
	return nil
}
