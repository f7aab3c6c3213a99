package group

import (
	"context"
	"errors"
)

// An offset write (commit, deletion, expiry) takes effect records first,
// as in Kafka's coordinator runtime: the operation builds its records,
// appendRecords appends them, and the group's committed offsets change
// only when those records are replayed through replayOffset, the function
// Load replays the log with. The replay waits until the records are
// durable, so OffsetFetch never answers an offset that a crash right
// after the commit loses (Kafka reads at the last committed offset of
// its timeline). Writes still check what is appended but not yet
// durable (unappliedCommit), as Kafka's writes see the latest state.

// unappliedWrite is records a group appended that are not known to be
// durable yet.
type unappliedWrite struct {
	// records are the offset records appended, decoded once: what is
	// replayed is the records, as Kafka replays its typed records.
	records []decoded
	// consumer are the KIP-848 records appended, replayed into the
	// group's durable consumer view (consumer_durable.go) with the topic
	// ids they were written with.
	consumer []Record
	ids      TopicIDs
	durable  Durable
	// err is why the records never became durable; they are dropped,
	// as Kafka reverts its state to the last committed offset.
	err error
}

// notWaiting is a context that is already done: a Durable called with
// it says without blocking whether its records are durable (nil), not
// yet (context.Canceled), or never (another error).
var notWaiting = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// appendRecords appends records of the group and queues the replay of
// its offset and KIP-848 records; the caller holds g.mu. It is the one
// place those records are appended and where their durability is
// signalled: the returned Durable ends once they are durable and
// replayed, so an answer given after it is seen by the next OffsetFetch
// or ConsumerGroupDescribe.
func (g *classicGroup) appendRecords(recs []Record) (Durable, error) {
	return g.appendConsumerRecords(recs, nil)
}

// appendConsumerRecords is appendRecords for KIP-848 records that name
// topics by the ids of ids (nil: the coordinator's own view).
func (g *classicGroup) appendConsumerRecords(recs []Record, ids TopicIDs) (Durable, error) {
	wait, err := g.c.append(g.id, recs)
	if err != nil || len(recs) == 0 {
		return wait, err
	}
	w := &unappliedWrite{durable: wait, ids: ids}
	for _, r := range recs {
		if isConsumerRecord(r.Key) {
			w.consumer = append(w.consumer, r)
		} else if d, err := decodeRecord(r.Key, r.Value); err == nil && d.kind == keyOffsetCommit {
			w.records = append(w.records, d)
		}
	}
	g.unapplied = append(g.unapplied, w)
	g.catchUp()
	return func(ctx context.Context) error {
		err := wait(ctx)
		if ctx.Err() != nil && err != nil {
			return err
		}
		// A write that failed is dropped now, and the group's state
		// reverted, before its answer is sent.
		g.mu.Lock()
		g.catchUp()
		g.mu.Unlock()
		if err != nil {
			return err
		}
		return w.err
	}, nil
}

// catchUp replays, in append order, the group's writes that became
// durable; the caller holds g.mu. Every read of committed offsets calls
// it first.
func (g *classicGroup) catchUp() {
	for len(g.unapplied) > 0 {
		w := g.unapplied[0]
		err := w.durable(notWaiting)
		if errors.Is(err, context.Canceled) {
			return
		}
		g.unapplied[0] = nil
		g.unapplied = g.unapplied[1:]
		if err != nil {
			w.err = err
			g.c.logger.Warn("offset records never became durable; dropped", "group", g.id, "err", err)
			if len(w.consumer) > 0 {
				g.revertConsumer()
			}
			continue
		}
		if g.state == Dead {
			continue // deleted after the append; its records are moot
		}
		for _, d := range w.records {
			g.replayOffset(d)
		}
		ids := w.ids
		if ids == nil && len(w.consumer) > 0 {
			ids = g.c.topics()
		}
		for _, r := range w.consumer {
			g.replayDurableConsumer(r.Key, r.Value, ids)
		}
	}
}

// replayOffset applies one offset commit record, or its tombstone, to
// the group: how committed offsets change, at load and at serve.
func (g *classicGroup) replayOffset(d decoded) {
	if d.offset == nil {
		g.deleteOffset(d.tp)
		return
	}
	g.setOffset(d.tp, *d.offset)
}

// unappliedCommit reports whether an appended write not yet durable
// commits or deletes tp; the caller holds g.mu.
func (g *classicGroup) unappliedCommit(tp TopicPartition) bool {
	for _, w := range g.unapplied {
		for _, d := range w.records {
			if d.tp == tp {
				return true
			}
		}
	}
	return false
}

// unappliedPartitions lists the partitions the group's not yet durable
// writes commit or delete; the caller holds g.mu.
func (g *classicGroup) unappliedPartitions() []TopicPartition {
	var out []TopicPartition
	for _, w := range g.unapplied {
		for _, d := range w.records {
			out = append(out, d.tp)
		}
	}
	return out
}
