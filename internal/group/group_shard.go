package group

import "slices"

// groupShard is the state of one __consumer_offsets partition: its
// classic groups (which hold their offsets), and its KIP-848 and share
// groups, as Kafka's GroupCoordinatorShard holds its partition's. A load
// replays the partition into a new groupShard and then installs it, and
// an unload drops the partition's groupShard whole, so each takes
// exactly that partition's groups. The maps, and each group's shard,
// are guarded by Coordinator.mu.
type groupShard struct {
	partition int32
	groups    map[string]*classicGroup
	consumer  map[string]*consumerGroup
	share     map[string]*shareGroup
}

func newGroupShard(partition int32) *groupShard {
	return &groupShard{partition: partition, groups: map[string]*classicGroup{},
		consumer: map[string]*consumerGroup{}, share: map[string]*shareGroup{}}
}

// shardOf is the shard that holds id, nil if none does; the caller holds
// c.mu. Before __consumer_offsets exists (or without it) shardsOf is 0
// and every group is in shard 0.
func (c *Coordinator) shardOf(id string) *groupShard {
	return c.shards[PartitionFor(id, c.shardsOf)]
}

// shardGroup is id's group in s, creating it when create is set; nil
// s stands for the coordinator's installed shard of id.
func (c *Coordinator) shardGroup(s *groupShard, id string, create bool) (g *classicGroup, created bool) {
	c.mu.RLock()
	target := s
	if target == nil {
		target = c.shardOf(id)
	}
	if target != nil {
		g = target.groups[id]
	}
	c.mu.RUnlock()
	if g != nil || !create {
		return g, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s == nil {
		p := PartitionFor(id, c.shardsOf)
		if s = c.shards[p]; s == nil {
			s = newGroupShard(p)
			c.shards[p] = s
		}
	}
	if g = s.groups[id]; g == nil {
		g, created = newClassicGroup(c, id, c.clock.Now()), true
		g.shard = s
		s.groups[id] = g
	}
	return g, created
}

// install serves a loaded shard of a topic of partitions partitions.
// Groups made for its partition before the load (the topic was created
// by their first write) join it unless the log brought theirs back.
func (c *Coordinator) install(s *groupShard, partitions int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shardsOf != partitions {
		c.rehash(partitions)
	}
	if old := c.shards[s.partition]; old != nil {
		for id, g := range old.groups {
			if _, ok := s.groups[id]; ok {
				g.resigned.Store(true)
				continue
			}
			s.adopt(old, g)
		}
	}
	c.shards[s.partition] = s
}

// rehash spreads the groups over the shards of partitions partitions;
// the caller holds c.mu.
func (c *Coordinator) rehash(partitions int32) {
	old := c.shards
	c.shards, c.shardsOf = map[int32]*groupShard{}, partitions
	for _, from := range old {
		for _, g := range from.groups {
			p := PartitionFor(g.id, partitions)
			to := c.shards[p]
			if to == nil {
				to = newGroupShard(p)
				c.shards[p] = to
			}
			to.adopt(from, g)
		}
	}
}

// adopt moves g, with its KIP-848 and share group, from shard from; the
// caller holds c.mu.
func (s *groupShard) adopt(from *groupShard, g *classicGroup) {
	g.shard = s
	s.groups[g.id] = g
	if cg := from.consumer[g.id]; cg != nil {
		s.consumer[g.id] = cg
	}
	if sg := from.share[g.id]; sg != nil {
		s.share[g.id] = sg
	}
}

// take removes the shard of partition, of a topic of partitions
// partitions, and returns its groups; the caller holds c.mu.
func (c *Coordinator) take(partition, partitions int32) map[string]*classicGroup {
	if c.shardsOf == partitions {
		s := c.shards[partition]
		delete(c.shards, partition)
		if s == nil {
			return map[string]*classicGroup{}
		}
		return s.groups
	}
	// The shards hash over another count (the topic was deleted and
	// its old partitions are unloading): pick the partition's ids out.
	gone := map[string]*classicGroup{}
	for _, s := range c.shards {
		for id, g := range s.groups {
			if PartitionFor(id, partitions) == partition {
				gone[id] = g
				delete(s.groups, id)
				delete(s.consumer, id)
				delete(s.share, id)
			}
		}
	}
	return gone
}

// groupsOf lists the groups of s, ordered by id.
func (c *Coordinator) groupsOf(s *groupShard) []*classicGroup {
	c.mu.RLock()
	out := make([]*classicGroup, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, g)
	}
	c.mu.RUnlock()
	sortGroups(out)
	return out
}

func sortGroups(gs []*classicGroup) {
	slices.SortFunc(gs, func(a, b *classicGroup) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
}
