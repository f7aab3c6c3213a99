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
	// shard receives the partition's groups, and is installed (served)
	// when the load ends; partitions is the topic's partition count.
	shard      *groupShard
	partitions int32
	// open is the groups each producer has pending offsets in since its
	// last marker in the partition.
	open map[int64]map[string]struct{}
	// producers wrote transactional offsets in the partition.
	producers map[int64]struct{}
	skipped   int
}

func newPartitionLoad(now time.Time, partition, partitions int32) *partitionLoad {
	return &partitionLoad{now: now, shard: newGroupShard(partition), partitions: partitions, open: map[int64]map[string]struct{}{},
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
		c.loadMarker(l, sr)
		return
	}
	_, ok := c.loadConsumerRecord(l.shard, sr.Key, sr.Value, l.now)
	if !ok {
		_, ok = c.loadShareRecord(l.shard, sr.Key, sr.Value, l.now)
	}
	if ok {
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
	if d.kind == keyOffsetCommit && d.offset != nil && sr.ProducerID >= 0 {
		c.apply(l.shard, d, &txnProducer{id: sr.ProducerID, epoch: sr.ProducerEpoch}, l.now)
		l.producers[sr.ProducerID] = struct{}{}
		if l.open[sr.ProducerID] == nil {
			l.open[sr.ProducerID] = map[string]struct{}{}
		}
		l.open[sr.ProducerID][d.group] = struct{}{}
		return
	}
	c.apply(l.shard, d, nil, l.now)
}

// finishLoad serves the shard a partition's replay filled and settles
// its groups: one whose last record was a tombstone and has no offsets
// left is gone, the transactions left open are indexed, KIP-848 groups
// are served from their records and classic members' sessions start.
func (c *Coordinator) finishLoad(l *partitionLoad) {
	c.mu.Lock()
	for id, g := range l.shard.groups {
		switch {
		case g.state != Dead:
		case len(g.txn.pending) == 0:
			delete(l.shard.groups, id)
		default:
			g.state = Empty // kept for its open transactions
		}
	}
	loaded := make([]*classicGroup, 0, len(l.shard.groups))
	for _, g := range l.shard.groups {
		loaded = append(loaded, g)
	}
	c.mu.Unlock()
	sortGroups(loaded)
	c.install(l.shard, l.partitions)
	for _, g := range loaded {
		g.mu.Lock()
		for pid := range l.producers {
			// The index holds the transactions the markers replayed
			// left open, and only those.
			if g.txn.pending[pid] != nil {
				c.indexTxn(pid, g.id)
			} else {
				c.unindexTxn(pid, g.id)
			}
		}
		g.mu.Unlock()
	}
	c.adoptLoadedConsumers(loaded)
	c.startLoadedSessions(loaded)
}

// loadMarker replays a transaction marker: it ends the producer's
// transaction in the groups of its partition.
func (c *Coordinator) loadMarker(l *partitionLoad, sr StoredRecord) {
	open := l.open
	groups := open[sr.ProducerID]
	delete(open, sr.ProducerID)
	for id := range groups {
		g, _ := c.shardGroup(l.shard, id, false)
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
func (c *Coordinator) apply(s *groupShard, d decoded, txn *txnProducer, now time.Time) {
	g, _ := c.shardGroup(s, d.group, true)
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
