package txn

// Unload forgets every transactional id, as Kafka's coordinator does when
// it resigns its __transaction_state partitions (here: the topic was
// deleted). Requests for those ids then start afresh, on a new topic the
// next InitProducerId creates. A write already on its way lands in the
// old partition, which is gone with it, and until Unload has run the
// store refuses writes to a topic created since (ErrStateTopicReplaced);
// background work for an unloaded transaction finds no state and stops.
// A transaction that was open keeps its records open in the data
// partitions, as in Kafka, until its producer is fenced or aborts.
//
// The coordinator appends under its lock, and an append can wait on the
// metadata store, so Unload must not be called from a metadata commit.
func (c *Coordinator) Unload() {
	c.mu.Lock()
	forgotten := len(c.txns)
	c.txns = map[string]*txnMeta{}
	c.offline = nil // the partitions that failed to load are gone too
	if f, ok := c.store.(interface{ Forget() }); ok {
		f.Forget()
	}
	c.signalSettled()
	c.unlock()
	c.logger.Info("unloading every transactional id: __transaction_state was deleted", "transactional.ids", forgotten)
}
