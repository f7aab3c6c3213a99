package txn

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
)

// Load rebuilds every transactional id's state from stored records: the
// last record of an id wins, a tombstone forgets it. A transaction found
// prepared (PrepareCommit, PrepareAbort) is completed: its markers are
// written again and its Complete state after them. An open one (Ongoing)
// is aborted by Tick once its timeout has passed, as if the broker had
// never stopped. Malformed records are counted and skipped, so one bad
// record cannot keep the broker from starting; a partition that cannot
// be read (group.PartitionLoadError) is taken offline alone, its
// transactional ids answering NOT_COORDINATOR, and is not an error.
func (c *Coordinator) Load(r Replayer) (skipped int, err error) {
	loaded := map[string]*txnMeta{}
	err = r.Replay(func(rec Record) error {
		id, err := DecodeKey(rec.Key)
		if err != nil {
			skipped++
			return nil
		}
		if rec.Value == nil {
			delete(loaded, id)
			return nil
		}
		v, err := DecodeValue(rec.Value)
		if err != nil {
			skipped++
			return nil
		}
		if v.State == Dead || v.State == PrepareEpochFence {
			// Never written by Kafka's coordinator: only tombstones end
			// an id. An epoch fence is followed by PrepareAbort.
			delete(loaded, id)
			return nil
		}
		loaded[id] = fromValue(id, v)
		return nil
	})
	failed, err := group.SplitLoadErrors(err)
	offline := group.NewOfflinePartitions(failed)
	for _, f := range failed {
		c.logger.Error("a partition of the transaction coordinator could not be loaded; its transactional ids are offline (NOT_COORDINATOR) until the broker starts with it readable",
			"partition", f.Partition, "partitions", f.Partitions, "err", f.Err)
	}
	c.mu.Lock()
	defer c.unlock()
	c.offline = offline
	for id, m := range loaded {
		if offline.Holds(id) {
			continue // what was read of it may not be its last state
		}
		c.txns[id] = m
		c.startCompletion(m)
	}
	return skipped, err
}

// unavailableLocked is NOT_COORDINATOR for a transactional id of a
// partition whose load failed, nil otherwise.
func (c *Coordinator) unavailableLocked(transactionalID string) error {
	if c.offline.Holds(transactionalID) {
		return kerr.NotCoordinator
	}
	return nil
}
