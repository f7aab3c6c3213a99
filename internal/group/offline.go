package group

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
)

// PartitionLoadError is a __consumer_offsets partition Load could not
// read to its end (a corrupt batch, an I/O error). Its groups are left
// offline; the other partitions load and serve.
type PartitionLoadError struct {
	Partition int32
	// Partitions is the topic's partition count, which group ids hash
	// over (PartitionFor).
	Partitions int32
	Err        error
}

func (e *PartitionLoadError) Error() string {
	return fmt.Sprintf("loading partition %d of %d: %v", e.Partition, e.Partitions, e.Err)
}

func (e *PartitionLoadError) Unwrap() error { return e.Err }

// OfflinePartitions are the partitions of a coordinator's topic whose load
// failed, as Kafka's CoordinatorRuntime leaves a partition FAILED: the
// keys (group ids, transactional ids) hashed to them answer
// NOT_COORDINATOR until the broker starts again with them readable. A nil
// *OfflinePartitions has none.
type OfflinePartitions struct {
	partitions int32
	failed     map[int32]error
}

// NewOfflinePartitions collects failed partitions; nil if there are none.
func NewOfflinePartitions(failed []*PartitionLoadError) *OfflinePartitions {
	if len(failed) == 0 {
		return nil
	}
	o := &OfflinePartitions{partitions: failed[0].Partitions, failed: map[int32]error{}}
	for _, f := range failed {
		o.failed[f.Partition] = f.Err
	}
	return o
}

// Holds reports whether key hashes to an offline partition.
func (o *OfflinePartitions) Holds(key string) bool {
	if o == nil {
		return false
	}
	_, down := o.failed[PartitionFor(key, o.partitions)]
	return down
}

// takeOffline records the failed partitions and drops what was read of
// their groups before the failure: half a group's offsets must not be
// served as if they were all of them.
func (c *Coordinator) takeOffline(failed []*PartitionLoadError) {
	off := NewOfflinePartitions(failed)
	if off == nil {
		return
	}
	for _, f := range failed {
		c.logger.Error("a partition of the group coordinator could not be loaded; its groups are offline (NOT_COORDINATOR) until the broker starts with it readable",
			"partition", f.Partition, "partitions", f.Partitions, "err", f.Err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offline = off
	for _, f := range failed {
		c.take(f.Partition, f.Partitions)
	}
}

// unavailable is NOT_COORDINATOR for a group of a partition whose load
// failed, nil otherwise.
func (c *Coordinator) unavailable(groupID string) *kerr.Error {
	c.mu.RLock()
	off, resigned := c.offline, len(c.unloaded) > 0 && c.unloaded[PartitionFor(groupID, c.unloadedOf)]
	c.mu.RUnlock()
	if resigned || off.Holds(groupID) {
		return kerr.NotCoordinator
	}
	return nil
}
