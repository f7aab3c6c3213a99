package group

import "github.com/twmb/franz-go/pkg/kerr"

// Unload forgets every group, as Kafka's coordinator does when it resigns
// its partitions; here because __consumer_offsets was deleted, taking the
// groups' records with it. New requests find no group from the moment it
// returns. Members waiting on a join or a sync are answered
// NOT_COORDINATOR and the old groups go Dead, so a request already holding
// one fails instead of writing to the topic created anew; that part runs
// in the background, because Unload is called while a metadata commit is
// in progress and a request holding a group may be waiting on the
// metadata to create __consumer_offsets again. A client that finds the
// coordinator again starts from nothing, as after the same deletion in
// Kafka.
func (c *Coordinator) Unload() {
	c.mu.Lock()
	groups := map[string]*classicGroup{}
	for _, s := range c.shards {
		for id, g := range s.groups {
			g.resigned.Store(true)
			groups[id] = g
		}
	}
	c.shards, c.shardsOf = map[int32]*groupShard{}, 0
	c.offline = nil // the partitions that failed to load are gone too
	c.unloaded = nil
	c.mu.Unlock()
	c.logger.Info("unloading every group: __consumer_offsets was deleted", "groups", len(groups))
	go c.retire(groups)
	if o, ok := c.store.(*OffsetsTopic); ok {
		// The shards are bound to the deleted topic; FindCoordinator's
		// EnsureStorage loads those of the topic created anew. Not under
		// the metadata commit this is called in: a shard's writer may be
		// waiting on it.
		go o.unloadAll()
	}
}

// retire ends groups Unload removed.
func (c *Coordinator) retire(groups map[string]*classicGroup) {
	now := c.clock.Now()
	for _, g := range groups {
		g.mu.Lock()
		for _, m := range g.allMembers() {
			m.respondJoin(JoinResult{Err: kerr.NotCoordinator, MemberID: m.id, Generation: -1})
			m.respondSync(SyncResult{Err: kerr.NotCoordinator})
		}
		g.transition(Dead, now)
		g.mu.Unlock()
	}
	// The open-transactions index keeps their ids: CompleteTransaction
	// skips a group that is gone.
}
