package group

// resign forgets one __consumer_offsets partition's (of partitions)
// groups, as Kafka's coordinator does when another broker becomes its
// leader: its group ids answer NOT_COORDINATOR until clearResigned. It
// returns the groups for retire, which the caller runs without a shard's
// lock. Their records stay in the log, and the other partitions' groups
// are untouched.
func (c *Coordinator) resign(partition, partitions int32) map[string]*classicGroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unloaded == nil || c.unloadedOf != partitions {
		c.unloaded = map[int32]bool{}
	}
	c.unloaded[partition], c.unloadedOf = true, partitions
	gone := c.take(partition, partitions)
	for _, g := range gone {
		g.resigned.Store(true)
	}
	return gone
}

// clearResigned serves the partition's groups again, once it is loaded.
func (c *Coordinator) clearResigned(partition, partitions int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unloadedOf == partitions {
		delete(c.unloaded, partition)
	}
}

// ReloadPartition unloads one __consumer_offsets partition and loads it
// again from its log, as a move of its leadership away and back would:
// its groups and offsets come back as after a restart, members carrying
// on with their generations and epochs without a rebalance.
func (c *Coordinator) ReloadPartition(partition int32) error {
	o, ok := c.store.(*OffsetsTopic)
	if !ok {
		return errNotOffsetsTopic
	}
	return o.Reload(partition)
}

// LoadAll loads every partition of __consumer_offsets (the broker's
// start).
func (c *Coordinator) LoadAll() (skipped int, err error) {
	o, ok := c.store.(*OffsetsTopic)
	if !ok {
		return 0, errNotOffsetsTopic
	}
	return o.LoadAll()
}
