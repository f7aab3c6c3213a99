package group

import "time"

// StoredRecord is one record of __consumer_offsets as a load replays it,
// with what it needs to know of its batch.
type StoredRecord struct {
	Key, Value []byte
	// Partition is the __consumer_offsets partition it was read from: a
	// transaction marker ends the transaction in that partition only.
	Partition int32
	// ProducerID and ProducerEpoch are the batch's; -1 for the
	// coordinator's own writes. An offset commit with a producer id was
	// written by TxnOffsetCommit and waits for the producer's marker.
	ProducerID    int64
	ProducerEpoch int16
	Transactional bool
	// Marker is a transaction marker (a control batch: Key and Value are
	// nil); Commit says whether it commits or aborts.
	Marker bool
	Commit bool
}

// partitionLoad is the replay of one __consumer_offsets partition in
// progress: the broker's comes from the coordinator runtime's Load of the
// partition (offsets_shard.go), record by record, and ends with
// finishLoad.
type partitionLoad struct {
	now time.Time
	// open is the groups each producer has pending offsets in since its
	// last marker in the partition.
	open map[int64]map[string]struct{}
	// groups are the ids the replay brought back: what finishLoad
	// settles, and nothing else (a live group of another load is not
	// its business).
	groups map[string]struct{}
	// producers wrote transactional offsets in the partition.
	producers map[int64]struct{}
	skipped   int
}

func newPartitionLoad(now time.Time) *partitionLoad {
	return &partitionLoad{now: now, open: map[int64]map[string]struct{}{}, groups: map[string]struct{}{},
		producers: map[int64]struct{}{}}
}

// replayStored replays one record of the partition at load. A classic
// group comes back as its last GroupMetadataValue left it, as Kafka loads
// it: with members, Stable at their generation with their assignments,
// so running members carry on without a rebalance (their session timers
// start again when the load ends); without, Empty with its generation
// and protocol type. Offsets of transactions are pending until their
// producer's marker in the same partition; those without one stay
// pending for CompleteTransaction. Malformed records are counted and
// skipped, so one bad record cannot keep the broker from starting.
func (c *Coordinator) replayStored(l *partitionLoad, sr StoredRecord) {
	if sr.Marker {
		c.loadMarker(l.open, sr)
		return
	}
	id, ok := c.loadConsumerRecord(sr.Key, sr.Value, l.now)
	if !ok {
		id, ok = c.loadShareRecord(sr.Key, sr.Value, l.now)
	}
	if ok {
		if id != "" {
			l.groups[id] = struct{}{}
		}
		return
	}
	d, err := decodeRecord(sr.Key, sr.Value)
	if err != nil {
		l.skipped++
		return
	}
	if d.kind != keyOffsetCommit && d.kind != keyGroupMetadata {
		return
	}
	l.groups[d.group] = struct{}{}
	if d.kind == keyOffsetCommit && d.offset != nil && sr.ProducerID >= 0 {
		c.apply(d, &txnProducer{id: sr.ProducerID, epoch: sr.ProducerEpoch}, l.now)
		l.producers[sr.ProducerID] = struct{}{}
		if l.open[sr.ProducerID] == nil {
			l.open[sr.ProducerID] = map[string]struct{}{}
		}
		l.open[sr.ProducerID][d.group] = struct{}{}
		return
	}
	c.apply(d, nil, l.now)
}

// finishLoad settles the groups a partition's replay brought back: one
// whose last record was a tombstone and has no offsets left is gone,
// the transactions left open are indexed, KIP-848 groups are served from their
// records and classic members' sessions start.
func (c *Coordinator) finishLoad(l *partitionLoad) {
	owns := func(id string) bool { _, ok := l.groups[id]; return ok }
	c.mu.Lock()
	for id := range l.groups {
		g := c.groups[id]
		switch {
		case g == nil || g.state != Dead:
		case len(g.txn.pending) == 0:
			delete(c.groups, id)
		default:
			g.state = Empty // kept for its open transactions
		}
	}
	c.mu.Unlock()
	for id := range l.groups {
		g := c.group(id, false)
		if g == nil {
			continue
		}
		g.mu.Lock()
		for pid := range l.producers {
			// The index holds the transactions the markers replayed
			// left open, and only those.
			if g.txn.pending[pid] != nil {
				c.indexTxn(pid, id)
			} else {
				c.unindexTxn(pid, id)
			}
		}
		g.mu.Unlock()
	}
	c.adoptLoadedConsumers(owns)
	c.startLoadedSessions(owns)
}

// loadMarker replays a transaction marker: it ends the producer's
// transaction in the groups of its partition.
func (c *Coordinator) loadMarker(open map[int64]map[string]struct{}, sr StoredRecord) {
	groups := open[sr.ProducerID]
	delete(open, sr.ProducerID)
	for id := range groups {
		g := c.group(id, false)
		if g == nil {
			continue
		}
		g.mu.Lock()
		if !g.completeTxn(sr.ProducerID, sr.ProducerEpoch, sr.Commit) {
			if open[sr.ProducerID] == nil {
				open[sr.ProducerID] = map[string]struct{}{}
			}
			open[sr.ProducerID][id] = struct{}{}
		}
		g.mu.Unlock()
	}
}

// apply replays one offset or classic group metadata record at load,
// through replay, the function that replays every durable write; at load
// the live classic group is what its durable record says.
func (c *Coordinator) apply(d decoded, txn *txnProducer, now time.Time) {
	g := c.group(d.group, true)
	g.mu.Lock()
	defer g.mu.Unlock()
	if d.kind == keyOffsetCommit && g.state == Dead {
		g.state = Empty
	}
	g.replay(d, txn)
	if d.kind == keyGroupMetadata {
		g.replayMetadata(d.meta, now)
	}
}
