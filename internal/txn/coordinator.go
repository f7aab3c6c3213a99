package txn

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
)

// Coordinator is the transaction coordinator of every transactional id
// (with a single node: all of them).
type Coordinator struct {
	cfg     Config
	clock   Clock
	store   Store
	markers MarkerWriter
	pids    *ProducerIDs
	// completeOffsets tells the group coordinator that a transaction's
	// marker is durable in __consumer_offsets.
	completeOffsets func(producerID int64, producerEpoch int16, commit bool)
	spawn           func(func())
	logger          *slog.Logger

	mu   sync.Mutex
	txns map[string]*txnMeta
	// offline are the __transaction_state partitions whose load failed.
	offline *group.OfflinePartitions
	// lastAbortScan and lastExpiryScan are when Tick last looked for
	// timed-out transactions and expired transactional ids.
	lastAbortScan, lastExpiryScan time.Time
	// queued is background work started under c.mu, run by unlock.
	queued []func()
	// settled is closed (and replaced) whenever a state write lands or
	// fails, for callers waiting out CONCURRENT_TRANSACTIONS.
	settled chan struct{}
}

// Options are a coordinator's collaborators.
type Options struct {
	// Clock defaults to the wall clock.
	Clock Clock
	// Store persists transaction states; nil keeps them in memory only.
	Store Store
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
	// Go runs the background work of a transaction (writing its markers
	// and its Complete state); nil starts a goroutine. Tests run it inline
	// or hold it back to stop a transaction between two phases.
	Go     func(func())
	Logger *slog.Logger
}

// New returns a coordinator with no transactions; Load fills it.
func New(cfg Config, opts Options) *Coordinator {
	cfg.fillDefaults()
	c := &Coordinator{cfg: cfg, clock: opts.Clock, store: opts.Store, markers: opts.Markers, pids: opts.ProducerIDs,
		completeOffsets: opts.CompleteOffsets, spawn: opts.Go, logger: opts.Logger, txns: map[string]*txnMeta{},
		settled: make(chan struct{})}
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	if c.spawn == nil {
		c.spawn = func(f func()) { go f() }
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	now := c.clock.Now()
	c.lastAbortScan, c.lastExpiryScan = now, now
	return c
}

// Config returns the coordinator's settings.
func (c *Coordinator) Config() Config { return c.cfg }

// PartitionFor is the __transaction_state partition of a transactional
// id: Kafka's abs(hashCode) modulo the partition count, the same hashing
// as the group coordinator's.
func (c *Coordinator) PartitionFor(transactionalID string) int32 {
	return group.PartitionFor(transactionalID, c.cfg.StatePartitions)
}

// EnsureStorage prepares the store (creates __transaction_state) when it
// knows how; FindCoordinator and InitProducerId call it, as Kafka creates
// the topic then.
func (c *Coordinator) EnsureStorage() error {
	if e, ok := c.store.(interface{ Ensure() error }); ok {
		return e.Ensure()
	}
	return nil
}

func (c *Coordinator) nowMs() int64 { return c.clock.Now().UnixMilli() }

// Errors of the coordinator, as Kafka answers them.
var (
	errNotAvailable = kerr.CoordinatorNotAvailable
)

// append writes next's record; the caller holds c.mu.
func (c *Coordinator) append(next *txnMeta) (Durable, error) {
	if c.store == nil {
		return noWait, nil
	}
	v := next.value()
	return c.store.Append(next.id, []Record{{Key: EncodeKey(next.id), Value: EncodeValue(v)}})
}

// transition persists next as cur's new state. It is called with c.mu
// held and returns with it held; while the write is on its way to disk
// cur is pending and every other change to it waits (answered
// CONCURRENT_TRANSACTIONS). On success cur becomes next.
func (c *Coordinator) transition(ctx context.Context, cur, next *txnMeta) error {
	d, err := c.append(next)
	if err != nil {
		c.logger.Warn("writing transaction state", "transactional.id", cur.id, "err", err)
		return errNotAvailable
	}
	cur.pending = true
	c.mu.Unlock()
	// The record may land even if the caller gives up, so the wait
	// outlives a cancelled request.
	err = d(context.WithoutCancel(ctx))
	c.mu.Lock()
	cur.pending = false
	c.signalSettled()
	if err != nil {
		c.logger.Warn("writing transaction state", "transactional.id", cur.id, "err", err)
		return errNotAvailable
	}
	inFlight := cur.markersInFlight
	*cur = *next
	cur.pending, cur.markersInFlight = false, inFlight
	return nil
}

// unlock releases c.mu, then starts the background work queued while it
// was held (so a Go that runs work inline does not deadlock).
func (c *Coordinator) unlock() {
	work := c.queued
	c.queued = nil
	c.mu.Unlock()
	for _, f := range work {
		c.spawn(f)
	}
}

// signalSettled wakes whoever waits for a transaction to settle; the
// caller holds c.mu.
func (c *Coordinator) signalSettled() {
	close(c.settled)
	c.settled = make(chan struct{})
}
