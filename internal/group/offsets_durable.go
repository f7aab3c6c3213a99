package group

import (
	"context"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Every write of a group (offset commits, deletions and expiry, classic
// group metadata, KIP-848 records, transactional offsets) takes effect
// records first, as in Kafka's coordinator runtime: the operation builds
// its records, appendWrite appends them, and the group's durable state
// changes only when those records are replayed through replay, the
// function a partition's load replays the log with (replayStored). The
// replay waits until the records
// are durable, so OffsetFetch never answers an offset that a crash right
// after the commit loses (Kafka reads at the last committed offset of
// its timeline), and a transaction's offsets are pending only once they
// are in the log. Writes still check what is appended but not yet
// durable (unappliedCommit), as Kafka's writes see the latest state.
//
// A classic group's live state (members joining, the rebalance under
// way) runs ahead of its records, as Kafka's classic groups do (it
// writes them without replaying them); what its records hold is also
// kept as they are durable (durableMeta), and a GroupMetadata write that
// never becomes durable sets the live group back to it by replayMetadata,
// the function Load brings the group back with: the group is then what
// a restart would find.

// unappliedWrite is records a group appended that are not known to be
// durable yet.
type unappliedWrite struct {
	// records are the offset and classic group metadata records
	// appended, decoded once: what is replayed is the records, as Kafka
	// replays its typed records.
	records []decoded
	// consumer are the KIP-848 records appended, replayed into the
	// group's durable consumer view (consumer_durable.go) with the topic
	// ids they were written with.
	consumer []Record
	// share are the share group records appended, replayed into the
	// group's durable share view (share_group_durable.go) the same way.
	share []Record
	ids   TopicIDs
	// txn is the producer whose transactional batch this is
	// (TxnOffsetCommit); nil for the coordinator's own writes.
	txn     *txnProducer
	durable Durable
	// answer is the Durable appendWrite returned: it waits for the
	// write and replays it.
	answer Durable
	// err is why the records never became durable; they are dropped,
	// as Kafka reverts its state to the last committed offset.
	err error
}

// txnProducer is the producer of a transactional batch of offsets.
type txnProducer struct {
	id    int64
	epoch int16
}

// hasMetadata reports whether the write holds a classic group metadata
// record.
func (w *unappliedWrite) hasMetadata() bool {
	for _, d := range w.records {
		if d.kind == keyGroupMetadata {
			return true
		}
	}
	return false
}

// notWaiting is a context that is already done: a Durable called with
// it says without blocking whether its records are durable (nil), not
// yet (context.Canceled), or never (another error).
var notWaiting = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// appendRecords appends records of the group and queues their replay;
// the caller holds g.mu. The returned Durable ends once they are
// durable and replayed, so an answer given after it is seen by the next
// OffsetFetch or ConsumerGroupDescribe.
func (g *classicGroup) appendRecords(recs []Record) (Durable, error) {
	return g.appendWrite(recs, nil, nil)
}

// appendWrite is the one place a group's records are appended and their
// durability signalled. ids names the topics of KIP-848 records (nil:
// the coordinator's own view); txn, when set, writes them as the
// producer's transactional batch.
func (g *classicGroup) appendWrite(recs []Record, ids TopicIDs, txn *txnProducer) (Durable, error) {
	var wait Durable
	var err error
	if txn != nil {
		wait, err = g.c.appendTxn(g, txn.id, txn.epoch, recs)
	} else {
		wait, err = g.c.append(g, recs)
	}
	if err != nil || len(recs) == 0 {
		return wait, err
	}
	w := &unappliedWrite{durable: wait, ids: ids, txn: txn}
	for _, r := range recs {
		if isConsumerRecord(r.Key) {
			w.consumer = append(w.consumer, r)
		} else if isShareRecord(r.Key) {
			w.share = append(w.share, r)
		} else if d, err := decodeRecord(r.Key, r.Value); err == nil && (d.kind == keyOffsetCommit || d.kind == keyGroupMetadata) {
			w.records = append(w.records, d)
		}
	}
	if txn != nil {
		// Indexed at once, so a marker that follows the batch finds the
		// group and replays it (completeTxn catches up first).
		g.c.indexTxn(txn.id, g.id)
	}
	g.unapplied = append(g.unapplied, w)
	g.catchUp()
	w.answer = func(ctx context.Context) error {
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
	}
	return w.answer, nil
}

// metadataDurable is what an answer that tells a member of the group's
// current generation waits on: the last classic metadata write still
// awaiting durability (nil: none), as Kafka's group turns Stable only
// once the generation's record is committed. The caller holds g.mu.
func (g *classicGroup) metadataDurable() Durable {
	for i := len(g.unapplied) - 1; i >= 0; i-- {
		if w := g.unapplied[i]; w.hasMetadata() {
			return w.answer
		}
	}
	return nil
}

// catchUp replays, in append order, the group's writes that became
// durable; the caller holds g.mu. Every read of durable state, and every
// classic group operation, calls it first.
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
			g.c.logger.Warn("group records never became durable; dropped", "group", g.id, "err", err)
			g.dropped(w)
			continue
		}
		if g.state == Dead {
			continue // deleted after the append; its records are moot
		}
		for _, d := range w.records {
			g.replay(d, w.txn)
		}
		ids := w.ids
		if ids == nil && len(w.consumer)+len(w.share) > 0 {
			ids = g.c.topics()
		}
		for _, r := range w.consumer {
			g.replayDurableConsumer(r.Key, r.Value, ids)
		}
		for _, r := range w.share {
			g.replayDurableShare(r.Key, r.Value, ids)
		}
	}
}

// dropped reverts what the live group holds of a write that never
// became durable; the caller holds g.mu.
func (g *classicGroup) dropped(w *unappliedWrite) {
	if g.resigned.Load() {
		// Its partition was unloaded since, and the group served now is
		// the one the next load replayed from the log, which this write
		// never reached: the coordinator's maps (the consumer group, the
		// open-transactions index) are that group's, not this one's.
		return
	}
	if len(w.consumer) > 0 {
		g.revertConsumer()
	}
	if len(w.share) > 0 {
		g.revertShare()
	}
	if w.txn != nil && g.txn.pending[w.txn.id] == nil && !g.unappliedTxn(w.txn.id) {
		g.c.unindexTxn(w.txn.id, g.id)
	}
	if w.hasMetadata() && g.state != Dead && !slices.ContainsFunc(g.unapplied, (*unappliedWrite).hasMetadata) {
		// A later metadata write still on its way holds the whole group
		// again; when none is, the group is what its log says.
		g.revertClassic()
	}
}

// replay applies one durable record of __consumer_offsets (an offset
// commit or its tombstone, a classic group's metadata) to the group's
// durable state: the one function a load replays the log with and catchUp
// replays each durable write with. An offset of a producer's
// transactional batch (txn set) is pending until its marker.
func (g *classicGroup) replay(d decoded, txn *txnProducer) {
	switch d.kind {
	case keyOffsetCommit:
		switch {
		case d.offset == nil:
			g.deleteOffset(d.tp)
		case txn != nil:
			g.addPending(txn.id, txn.epoch, d.tp, *d.offset)
		default:
			g.setOffset(d.tp, *d.offset)
		}
	case keyGroupMetadata:
		g.durableMeta, g.metaDurable = nil, true
		if d.meta != nil {
			// Encoded again: at load the record's buffer is reused.
			g.durableMeta = d.meta.AppendTo(nil)
		}
	}
}

// revertClassic sets the live classic group back to its last durable
// GroupMetadataValue, as a restart would load it, after a metadata write
// that never became durable: members waiting in a rebalance are told
// COORDINATOR_NOT_AVAILABLE and join again, those the log names carry on
// at its generation. A group none of whose metadata is durable is Empty,
// or gone if nothing else holds it. The caller holds g.mu.
func (g *classicGroup) revertClassic() {
	now := g.c.clock.Now()
	for _, m := range g.allMembers() {
		m.respondJoin(JoinResult{Err: kerr.CoordinatorNotAvailable, MemberID: m.id, Generation: -1})
		m.respondSync(SyncResult{Err: kerr.CoordinatorNotAvailable})
	}
	var v *kmsg.GroupMetadataValue
	if g.durableMeta != nil {
		v = new(kmsg.GroupMetadataValue)
		if err := v.ReadFrom(g.durableMeta); err != nil {
			v = nil // it was decoded once already; cannot happen
		}
	}
	g.replayMetadata(v, now)
	for _, m := range g.members {
		m.deadline = now.Add(m.sessionTimeout)
		g.armMember(m)
	}
	g.c.logger.Warn("group metadata not written; the group is back at its durable generation", "group", g.id,
		"generation", g.generation, "members", len(g.members))
	if g.state == Dead && len(g.txn.pending) == 0 && g.c.consumerGroupOf(g, false) == nil && len(g.unapplied) == 0 {
		g.c.drop(g)
	} else if g.state == Dead {
		g.state = Empty
	}
}

// unappliedTxn reports whether a transactional write of the producer
// (-1: of any producer) is still awaiting durability; the caller holds
// g.mu.
func (g *classicGroup) unappliedTxn(producerID int64) bool {
	return slices.ContainsFunc(g.unapplied, func(w *unappliedWrite) bool {
		return w.txn != nil && (producerID < 0 || w.txn.id == producerID)
	})
}

// unappliedTxnCommit reports whether a transactional write awaiting
// durability commits tp; the caller holds g.mu.
func (g *classicGroup) unappliedTxnCommit(tp TopicPartition) bool {
	for _, w := range g.unapplied {
		if w.txn == nil {
			continue
		}
		for _, d := range w.records {
			if d.kind == keyOffsetCommit && d.tp == tp {
				return true
			}
		}
	}
	return false
}

// unappliedCommit reports whether an appended write not yet durable
// commits or deletes tp; the caller holds g.mu.
func (g *classicGroup) unappliedCommit(tp TopicPartition) bool {
	for _, w := range g.unapplied {
		for _, d := range w.records {
			if d.kind == keyOffsetCommit && d.tp == tp {
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
			if d.kind == keyOffsetCommit {
				out = append(out, d.tp)
			}
		}
	}
	return out
}
