package group

import "time"

// StoredRecord is one record of __consumer_offsets as Load replays it,
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

// Replayer feeds every stored record to fn, in log order within each
// partition (OffsetsTopic is one).
type Replayer interface {
	Replay(fn func(StoredRecord) error) error
}

// Load rebuilds committed offsets and group state from stored records.
// A classic group comes back as its last GroupMetadataValue left it, as
// Kafka loads it: with members, Stable at their generation with their
// assignments, so running members carry on without a rebalance (their
// session timers start again when the load ends); without, Empty with
// its generation and protocol type. Offsets of transactions are pending
// until their producer's marker in the same partition; those without one
// stay pending for CompleteTransaction. Malformed records are counted and
// skipped, so one bad record cannot keep the broker from starting; a
// partition that cannot be read (PartitionLoadError) is taken offline
// alone, its groups answering NOT_COORDINATOR, and is not an error.
func (c *Coordinator) Load(r Replayer) (skipped int, err error) {
	return c.load(r, func(string) bool { return true })
}

// load replays r into the groups owns says belong to what is loaded.
func (c *Coordinator) load(r Replayer, owns func(groupID string) bool) (skipped int, err error) {
	now := c.clock.Now()
	// open is, per partition, the groups each producer has pending
	// offsets in since its last marker there.
	open := map[int32]map[int64]map[string]struct{}{}
	err = r.Replay(func(sr StoredRecord) error {
		if sr.Marker {
			c.loadMarker(open[sr.Partition], sr)
			return nil
		}
		if c.loadConsumerRecord(sr.Key, sr.Value, now) {
			return nil
		}
		d, err := decodeRecord(sr.Key, sr.Value)
		if err != nil {
			skipped++
			return nil
		}
		if d.kind == keyOffsetCommit && d.offset != nil && sr.ProducerID >= 0 {
			c.apply(d, &txnProducer{id: sr.ProducerID, epoch: sr.ProducerEpoch}, now)
			byProducer := open[sr.Partition]
			if byProducer == nil {
				byProducer = map[int64]map[string]struct{}{}
				open[sr.Partition] = byProducer
			}
			if byProducer[sr.ProducerID] == nil {
				byProducer[sr.ProducerID] = map[string]struct{}{}
			}
			byProducer[sr.ProducerID][d.group] = struct{}{}
			return nil
		}
		c.apply(d, nil, now)
		return nil
	})
	var offline []*PartitionLoadError
	offline, err = SplitLoadErrors(err)
	c.takeOffline(offline)
	// A group whose last record was a tombstone and has no offsets left
	// is gone.
	c.mu.Lock()
	for id, g := range c.groups {
		switch {
		case !owns(id), g.state != Dead:
		case len(g.txn.pending) == 0:
			delete(c.groups, id)
		default:
			g.state = Empty // kept for its open transactions
		}
	}
	c.mu.Unlock()
	c.rebuildTxnIndex()
	c.adoptLoadedConsumers(owns)
	c.startLoadedSessions(owns)
	return skipped, err
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

// rebuildTxnIndex makes the producer index match the groups' pending
// offsets, after Load ended transactions partition by partition.
func (c *Coordinator) rebuildTxnIndex() {
	index := map[int64]map[string]struct{}{}
	for _, g := range c.snapshot() {
		g.mu.Lock()
		for pid := range g.txn.pending {
			if index[pid] == nil {
				index[pid] = map[string]struct{}{}
			}
			index[pid][g.id] = struct{}{}
		}
		g.mu.Unlock()
	}
	c.offsetState.mu.Lock()
	c.offsetState.openTxns = index
	c.offsetState.mu.Unlock()
}

// apply replays one offset or classic group metadata record at load,
// through replay, the function that replays every durable write; at load
// the live classic group is what its durable record says.
func (c *Coordinator) apply(d decoded, txn *txnProducer, now time.Time) {
	if d.kind != keyOffsetCommit && d.kind != keyGroupMetadata {
		return
	}
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
