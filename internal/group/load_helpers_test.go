package group

// Replayer feeds stored records to a load, in log order within each
// partition: the tests' stand-in for __consumer_offsets, replayed through
// the coordinator's one replay (replayStored, finishLoad) as the
// runtime's load of a partition replays it.
type Replayer interface {
	Replay(fn func(StoredRecord) error) error
}

// Load replays every record of r, partition by partition.
func (c *Coordinator) Load(r Replayer) (skipped int, err error) {
	now := c.clock.Now()
	loads := map[int32]*partitionLoad{}
	var order []int32
	err = r.Replay(func(sr StoredRecord) error {
		l := loads[sr.Partition]
		if l == nil {
			l = newPartitionLoad(now, 0, 0)
			loads[sr.Partition] = l
			order = append(order, sr.Partition)
		}
		c.replayStored(l, sr)
		return nil
	})
	for _, p := range order {
		c.finishLoad(loads[p])
		skipped += loads[p].skipped
	}
	return skipped, err
}

// UnloadPartition resigns one partition, as the runtime's unload does.
func (c *Coordinator) UnloadPartition(partition, partitions int32) {
	c.retire(c.resign(partition, partitions))
}

// LoadPartition replays one partition's records of r and serves its
// groups again.
func (c *Coordinator) LoadPartition(partition, partitions int32, r Replayer) (skipped int, err error) {
	skipped, err = c.Load(partitionRecords{r: r, partition: partition})
	c.clearResigned(partition, partitions)
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
