package group

import "encoding/binary"

// A share group is read as its durable records make it, as consumer
// groups are (consumer_durable.go) and as Kafka reads at the last
// committed offset of its timeline: the records a share group appends
// are replayed, once durable, into the holder's durable view
// (classicGroup.durableShare) by the replay Load uses, and
// ShareGroupDescribe, ListGroups and DescribeShareGroupOffsets read that
// view. A group none of whose records is durable yet is not found.
// Heartbeats and the admin writes still work on the group as written
// (Kafka's latest state), and a write that never becomes durable sets
// that group back to the durable view with the writes still on their way
// replayed over it.

// isShareRecord reports whether key is of a share group record.
func isShareRecord(key []byte) bool {
	return len(key) >= 2 && isShareRecordType(int16(binary.BigEndian.Uint16(key)))
}

// replayDurableShare applies one durable share group record, its topics
// named by ids, to the group's durable view; the caller holds g.mu.
// Malformed records (load counts them) are skipped.
func (g *classicGroup) replayDurableShare(key, value []byte, ids TopicIDs) {
	rec, ok, err := decodeShareRecord(key, value)
	if !ok || err != nil {
		return
	}
	g.durableShare = g.replayShareOver(g.durableShare, rec, ids)
}

// replayShareOver applies rec to sg and returns the group it makes: nil
// once the group's epoch is deleted, a new group at the first record of
// one that does not exist, as a load brings share groups back.
func (g *classicGroup) replayShareOver(sg *shareGroup, rec shareRecord, ids TopicIDs) *shareGroup {
	if rec.Tombstone && rec.Type == keyShareGroupMetadata {
		return nil
	}
	if sg == nil {
		if rec.Tombstone {
			return nil
		}
		sg = newShareGroup(g)
	}
	cfg, _ := g.c.shareConfig(g.id)
	sg.replay(rec, ids, cfg, g.c.clock.Now())
	return sg
}

// committedShareGroup is the share group as its durable records make it,
// or nil; the caller holds g.mu.
func (g *classicGroup) committedShareGroup() *shareGroup {
	g.catchUp()
	return g.durableShare
}

// revertShare sets the group's live share group back to its durable view
// with the share records still awaiting durability replayed over it,
// after share records the live group had replayed never became durable.
// Members keep their session deadlines; one only the durable records
// know starts its session now, as at a load. The caller holds g.mu.
func (g *classicGroup) revertShare() {
	if g.state == Dead {
		return // deleted after the append: the deletion stands
	}
	c := g.c
	live := c.shareGroupOf(g, false)
	var next *shareGroup
	if g.durableShare != nil {
		next = g.durableShare.clone()
	}
	for _, w := range g.unapplied {
		if w == nil || w.err != nil {
			continue
		}
		ids := w.ids
		if ids == nil {
			ids = c.topics()
		}
		for _, r := range w.share {
			if rec, ok, err := decodeShareRecord(r.Key, r.Value); ok && err == nil {
				next = g.replayShareOver(next, rec, ids)
			}
		}
	}
	if next == nil {
		c.dropShareGroup(g)
		g.cancelTimer(groupTimer{kind: shareTimer})
		if c.blankHolder(g) && len(g.unapplied) == 0 {
			g.transition(Dead, c.clock.Now())
			c.drop(g)
		}
		return
	}
	// The partition counts are computed again from the metadata hash the
	// records hold, as after a load.
	next.countsPending = true
	if live != nil {
		for id, m := range next.members {
			if l := live.members[id]; l != nil {
				m.sessionDeadline = l.sessionDeadline
			}
		}
	}
	c.setShareGroup(g, next)
	next.arm(c.clock.Now())
	c.logger.Warn("share group records not written; the group is back at its durable records", "group", g.id,
		"epoch", next.epoch, "members", len(next.members))
}

// setShareGroup makes sg the share group of holder's id.
func (c *Coordinator) setShareGroup(holder *classicGroup, sg *shareGroup) {
	c.mu.Lock()
	if s := holder.shard; s != nil {
		s.share[holder.id] = sg
	}
	c.mu.Unlock()
}
