package group

// UnloadPartition resigns one __consumer_offsets partition (of
// partitions), as Kafka's coordinator does when another broker becomes
// its leader: its groups are forgotten, members waiting in a join or a
// sync are answered NOT_COORDINATOR, and its group ids answer
// NOT_COORDINATOR until LoadPartition. Its records stay in the log, and
// the other partitions' groups are untouched.
func (c *Coordinator) UnloadPartition(partition, partitions int32) {
	c.mu.Lock()
	if c.unloaded == nil || c.unloadedOf != partitions {
		c.unloaded = map[int32]bool{}
	}
	c.unloaded[partition], c.unloadedOf = true, partitions
	gone := map[string]*classicGroup{}
	for id, g := range c.groups {
		if PartitionFor(id, partitions) == partition {
			gone[id] = g
			delete(c.groups, id)
			delete(c.consumer.groups, id)
		}
	}
	c.mu.Unlock()
	c.logger.Info("unloaded a partition of the group coordinator", "partition", partition, "groups", len(gone))
	c.retire(gone)
}

// LoadPartition replays one partition's records (r may hold others; only
// the partition's groups are taken) with the replay Load uses, and serves
// its groups again: members carry on with their generations and epochs,
// without a rebalance, as after a restart.
func (c *Coordinator) LoadPartition(partition, partitions int32, r Replayer) (skipped int, err error) {
	owns := func(groupID string) bool { return PartitionFor(groupID, partitions) == partition }
	skipped, err = c.load(partitionRecords{r: r, partition: partition}, owns)
	c.mu.Lock()
	delete(c.unloaded, partition)
	c.mu.Unlock()
	c.logger.Info("loaded a partition of the group coordinator", "partition", partition, "skipped", skipped)
	return skipped, err
}

// partitionRecords replays the records of one partition of r.
type partitionRecords struct {
	r         Replayer
	partition int32
}

func (p partitionRecords) Replay(fn func(StoredRecord) error) error {
	return p.r.Replay(func(sr StoredRecord) error {
		if sr.Partition != p.partition {
			return nil
		}
		return fn(sr)
	})
}
