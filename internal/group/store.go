package group

import (
	"context"
	"errors"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Record is one record of __consumer_offsets: Kafka's key and value
// encodings; a nil Value is a tombstone. It is the coordinator runtime's
// record, so the group's records go to the runtime's writer as they are.
type Record = coordinator.Record

// Durable waits until appended records are on disk.
type Durable func(ctx context.Context) error

// Store persists a group's records. Append must not block for long (it is
// called with the group's lock held); the returned Durable is what waits.
type Store interface {
	Append(groupID string, records []Record) (Durable, error)
}

// TxnStore is a Store that can also write a producer's transactional
// records (TxnOffsetCommit): one batch with the transactional bit and the
// producer's id and epoch, which the log checks against the producer's
// last epoch in the partition.
type TxnStore interface {
	AppendTxn(groupID string, producerID int64, producerEpoch int16, records []Record) (Durable, error)
}

// errNotOffsetsTopic: loading and unloading partitions needs the broker's
// store.
var errNotOffsetsTopic = errors.New("group: the offsets store is not __consumer_offsets")

// errNoTxnStore: the store cannot write transactional records.
var errNoTxnStore = errors.New("group: the offsets store cannot write transactional records")

func noWait(context.Context) error { return nil }

// appendTxn writes a producer's transactional records, if there is a
// store.
func (c *Coordinator) appendTxn(g *classicGroup, producerID int64, producerEpoch int16, recs []Record) (Durable, error) {
	if c.store == nil || len(recs) == 0 {
		return noWait, nil
	}
	if o, ok := c.store.(*OffsetsTopic); ok {
		return o.submit(g, recs, &coordinator.Producer{ID: producerID, Epoch: producerEpoch})
	}
	ts, ok := c.store.(TxnStore)
	if !ok {
		return nil, errNoTxnStore
	}
	return ts.AppendTxn(g.id, producerID, producerEpoch, recs)
}

// append writes records through the store, if there is one.
func (c *Coordinator) append(g *classicGroup, recs []Record) (Durable, error) {
	if c.store == nil || len(recs) == 0 {
		return noWait, nil
	}
	if o, ok := c.store.(*OffsetsTopic); ok {
		return o.submit(g, recs, nil)
	}
	return c.store.Append(g.id, recs)
}

// EnsureStorage prepares the store (creates __consumer_offsets), when it
// knows how; FindCoordinator calls it, as Kafka creates the topic then.
func (c *Coordinator) EnsureStorage() error {
	if e, ok := c.store.(interface{ Ensure() error }); ok {
		return e.Ensure()
	}
	return nil
}
