package txn

// Load rebuilds every transactional id's state from stored records: the
// last record of an id wins, a tombstone forgets it. A transaction found
// prepared (PrepareCommit, PrepareAbort) is completed: its markers are
// written again and its Complete state after them. An open one (Ongoing)
// is aborted by Tick once its timeout has passed, as if the broker had
// never stopped. Malformed records are counted and skipped, so one bad
// record cannot keep the broker from starting.
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
	c.mu.Lock()
	defer c.unlock()
	for id, m := range loaded {
		c.txns[id] = m
		c.startCompletion(m)
	}
	return skipped, err
}
