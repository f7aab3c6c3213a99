package txn

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/coordinator"
	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// Coordinator is the transaction coordinator of the __transaction_state
// partitions loaded here (with a single node: all of them), one shard per
// partition on the coordinator runtime.
type Coordinator struct {
	cfg     Config
	clock   coordinator.Clock
	logs    coordinator.Logs
	markers MarkerWriter
	pids    *ProducerIDs
	// completeOffsets tells the group coordinator that a transaction's
	// marker is durable in __consumer_offsets.
	completeOffsets func(producerID int64, producerEpoch int16, commit bool)
	spawn           func(func())
	logger          *slog.Logger
	rt              *coordinator.Runtime[*stateShard]

	// started is when the coordinator started: Kafka's periodic scans
	// for timed-out transactions and expired ids count from it.
	started time.Time

	mu sync.Mutex
	// resigned are the partitions UnloadPartition gave up: they answer
	// NOT_COORDINATOR rather than load on first use.
	resigned map[int32]bool
}

// Options are a coordinator's collaborators.
type Options struct {
	// Clock defaults to the wall clock.
	Clock coordinator.Clock
	// Logs are the partitions of __transaction_state (NewStateLogs for
	// the broker's); nil keeps them in memory.
	Logs coordinator.Logs
	// Markers writes transaction markers; nil drops them (tests of the
	// state machine alone).
	Markers MarkerWriter
	// ProducerIDs hands out producer ids; required.
	ProducerIDs *ProducerIDs
	// CompleteOffsets is called once a transaction's marker is durable in
	// a partition of __consumer_offsets, so that the group coordinator
	// publishes (commit) or drops (abort) the producer's pending offsets:
	// group.Coordinator.CompleteTransaction.
	CompleteOffsets func(producerID int64, producerEpoch int16, commit bool)
	// Go runs the calls out of the state machine (a transaction's
	// markers, then its Complete state); nil starts a goroutine. Tests run
	// it inline or hold it back to stop a transaction between two phases.
	Go     func(func())
	Logger *slog.Logger
}

// StateTopic is __transaction_state as Kafka creates it: compacted,
// uncompressed (Kafka's TransactionLog.EnforcedCompression), with the
// partition count and segment size of the transaction.state.log.*
// settings.
func StateTopic(configs *config.LogConfigs) coordinator.TopicSpec {
	return coordinator.TopicSpec{Name: metadata.TransactionStateTopic, Compression: "uncompressed", Configs: configs,
		PartitionsKey: "transaction.state.log.num.partitions", SegmentBytesKey: "transaction.state.log.segment.bytes"}
}

// NewStateLogs returns the broker's __transaction_state, created on first
// use as StateTopic says; its batches are bounded by its
// max.message.bytes, both resolved by configs.
func NewStateLogs(meta *metadata.Store, logs *storage.Manager, configs *config.LogConfigs) *coordinator.TopicLogs {
	return coordinator.NewTopicLogs(meta, logs, StateTopic(configs))
}

// New returns a coordinator with no partition loaded; Load loads them.
func New(cfg Config, opts Options) *Coordinator {
	cfg.fillDefaults()
	c := &Coordinator{cfg: cfg, clock: opts.Clock, logs: opts.Logs, markers: opts.Markers, pids: opts.ProducerIDs,
		completeOffsets: opts.CompleteOffsets, spawn: opts.Go, logger: opts.Logger, resigned: map[int32]bool{}}
	if c.clock == nil {
		c.clock = coordinator.SystemClock{}
	}
	if c.logs == nil {
		c.logs = coordinator.NewMemoryLogs()
	}
	if c.spawn == nil {
		c.spawn = func(f func()) { go f() }
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	c.started = c.clock.Now()
	c.rt = coordinator.New(coordinator.Options[*stateShard]{Logs: c.logs, Clock: c.clock, Logger: c.logger,
		NewShard: func(ctx *coordinator.Context) *stateShard { return newStateShard(c, ctx) }})
	return c
}

// Config returns the coordinator's settings.
func (c *Coordinator) Config() Config { return c.cfg }

// partitions is __transaction_state's partition count: the topic's when
// it exists, transaction.state.log.num.partitions before.
func (c *Coordinator) partitions() int32 {
	if p, ok := c.logs.(interface{ Partitions() int32 }); ok {
		if n := p.Partitions(); n > 0 {
			return n
		}
	}
	return c.cfg.StatePartitions
}

// topicExists reports whether __transaction_state exists (always, for
// logs that do not say).
func (c *Coordinator) topicExists() bool {
	if p, ok := c.logs.(interface{ Partitions() int32 }); ok {
		return p.Partitions() > 0
	}
	return true
}

// PartitionFor is the __transaction_state partition of a transactional
// id: Kafka's abs(hashCode) modulo the partition count, the same hashing
// as the group coordinator's.
func (c *Coordinator) PartitionFor(transactionalID string) int32 {
	return group.PartitionFor(transactionalID, c.partitions())
}

// EnsureStorage creates __transaction_state when the logs know how;
// FindCoordinator and InitProducerId call it, as Kafka creates the topic
// then.
func (c *Coordinator) EnsureStorage() error {
	if e, ok := c.logs.(interface{ Ensure() error }); ok {
		return e.Ensure()
	}
	return nil
}

// Load loads every partition of __transaction_state, as a broker does at
// start. A transaction found prepared is completed (its markers written
// again, then its Complete state); an open one is aborted once its
// timeout passes, as if the broker had never stopped. Malformed records
// are counted and skipped, so one bad record cannot keep the broker from
// starting; a partition that cannot be read is left offline alone, its
// transactional ids answering NOT_COORDINATOR, and is not an error.
func (c *Coordinator) Load() (skipped int, err error) {
	if !c.topicExists() {
		return 0, nil
	}
	for p := range c.partitions() {
		if err := c.rt.Load(p); err != nil {
			c.logger.Error("a partition of the transaction coordinator could not be loaded; its transactional ids are offline (NOT_COORDINATOR) until the broker starts with it readable",
				"partition", p, "err", err)
			continue
		}
		n, _ := coordinator.Read(c.rt, p, func(s *stateShard) (int, error) { return s.skipped, nil })
		skipped += n
	}
	return skipped, nil
}

// Unload forgets every transactional id, as Kafka's coordinator does when
// it resigns its __transaction_state partitions (here: the topic was
// deleted). Requests for those ids then start afresh, on a new topic the
// next InitProducerId creates; a shard is bound to the topic it was
// loaded from, so a write already on its way cannot land in the new one.
// Calls out for an unloaded transaction find no shard and stop. A
// transaction that was open keeps its records open in the data
// partitions, as in Kafka, until its producer is fenced or aborts.
func (c *Coordinator) Unload() {
	partitions := c.rt.Partitions()
	c.rt.UnloadAll()
	c.mu.Lock()
	c.resigned = map[int32]bool{}
	c.mu.Unlock()
	c.logger.Info("unloading every transactional id: __transaction_state was deleted", "partitions", len(partitions))
}

// Close stops coordinating (the broker shuts down): every partition is
// unloaded and its timers stopped.
func (c *Coordinator) Close() { c.rt.UnloadAll() }

// UnloadPartition stops coordinating one partition's transactional ids,
// as when its leadership moves away: they answer NOT_COORDINATOR until
// LoadPartition takes the partition back.
func (c *Coordinator) UnloadPartition(p int32) {
	c.mu.Lock()
	c.resigned[p] = true
	c.mu.Unlock()
	c.rt.Unload(p)
}

// LoadPartition loads one partition of __transaction_state, as when this
// broker becomes its leader.
func (c *Coordinator) LoadPartition(p int32) error {
	c.mu.Lock()
	delete(c.resigned, p)
	c.mu.Unlock()
	return c.rt.Load(p)
}

func (c *Coordinator) isResigned(p int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resigned[p]
}

// shardFor is the loaded partition of a transactional id, loading it when
// the topic exists and it is not yet.
func (c *Coordinator) shardFor(transactionalID string) (int32, error) {
	p := c.PartitionFor(transactionalID)
	if c.rt.Loaded(p) {
		return p, nil
	}
	if c.rt.Failed(p) != nil || c.isResigned(p) {
		return p, kerr.NotCoordinator
	}
	if !c.topicExists() {
		return p, errNoTopic
	}
	if err := c.rt.Load(p); err != nil {
		c.logger.Warn("loading a partition of the transaction coordinator", "partition", p, "err", err)
		return p, kerr.NotCoordinator
	}
	return p, nil
}

// errNoTopic: __transaction_state does not exist, so no transactional id
// is known.
var errNoTopic = errors.New("txn: no __transaction_state")

// errNotAvailable is Kafka's answer when a state write fails.
var errNotAvailable = kerr.CoordinatorNotAvailable

// write runs op on the transactional id's shard and waits until what it
// wrote is durable and replayed. An op's own error comes back as it is;
// a failed write is COORDINATOR_NOT_AVAILABLE.
func write[T any](c *Coordinator, transactionalID string, op func(s *stateShard) (coordinator.Result[T], error)) (T, error) {
	p, err := c.shardFor(transactionalID)
	if err != nil {
		var zero T
		if errors.Is(err, errNoTopic) {
			err = errNotAvailable
		}
		return zero, err
	}
	var opErr error
	res, err := coordinator.Write(c.rt, p, func(s *stateShard) (coordinator.Result[T], error) {
		r, err := op(s)
		opErr = err
		return r, err
	})
	switch {
	case opErr != nil:
		return res, opErr
	case errors.Is(err, coordinator.ErrNotCoordinator):
		return res, kerr.NotCoordinator
	case err != nil:
		c.logger.Warn("writing transaction state", "transactional.id", transactionalID, "err", err)
		return res, errNotAvailable
	}
	return res, nil
}

// read runs op on the transactional id's shard; an id of a topic that
// does not exist is notFound.
func read[T any](c *Coordinator, transactionalID string, notFound error, op func(s *stateShard) (T, error)) (T, error) {
	var zero T
	p, err := c.shardFor(transactionalID)
	if errors.Is(err, errNoTopic) {
		return zero, notFound
	}
	if err != nil {
		return zero, err
	}
	out, err := coordinator.Read(c.rt, p, op)
	if errors.Is(err, coordinator.ErrNotCoordinator) {
		return zero, kerr.NotCoordinator
	}
	return out, err
}

// update changes the shard's bookkeeping (not its state) under its lock.
func (c *Coordinator) update(p int32, op func(s *stateShard)) error {
	_, err := coordinator.Write(c.rt, p, func(s *stateShard) (coordinator.Result[struct{}], error) {
		op(s)
		return coordinator.Result[struct{}]{}, nil
	})
	return err
}

// settled is closed the next time a write of the transactional id's
// partition lands or fails.
func (c *Coordinator) settled(transactionalID string) <-chan struct{} {
	return c.rt.Settled(c.PartitionFor(transactionalID))
}

// scanAfter is the first of Kafka's periodic scans, every interval since
// the coordinator started, at or after t: a keyed timer fires when the
// scan Kafka runs would have found what it is set for.
func (c *Coordinator) scanAfter(t time.Time, interval time.Duration) time.Time {
	if interval <= 0 || !t.After(c.started) {
		return t
	}
	n := (t.Sub(c.started) + interval - 1) / interval
	return c.started.Add(n * interval)
}
