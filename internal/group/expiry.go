package group

import (
	"slices"
	"time"
)

// Offset expiry (offsets.retention.minutes), as Kafka 4's
// OffsetMetadataManager.cleanupExpiredOffsets: every
// offsets.retention.check.interval.ms, Tick looks at each group and
// writes tombstones for the committed offsets it no longer needs:
//
//   - a classic group that is Empty: every offset, once the retention has
//     passed since the group became Empty;
//   - a group with no protocol type (simple consumers committing outside
//     group management): every offset, once the retention has passed
//     since it was committed;
//   - a Stable classic group of protocol type "consumer": offsets of
//     topics no member subscribes to, counted from their commit;
//   - a consumer (KIP-848) group: offsets of topics no member subscribes
//     to (with no members: every topic), counted from their commit.
//
// Other groups keep theirs. An offset with a pending transactional
// commit is kept. A group left with no offsets, no open transaction and
// no members is deleted: its group tombstones go in the same batch.

// expiryPolicy says which of a group's offsets may expire, and from when.
type expiryPolicy struct {
	// since, when set, is the base of every offset's retention (the
	// time the group became Empty); otherwise each offset's commit time.
	since time.Time
	// subscribed topics keep their offsets.
	subscribed map[string]bool
}

// maybeExpireOffsets runs the expiry when its interval has passed; Tick
// calls it. The first call only schedules, as Kafka schedules the first
// cleanup one interval after loading. On __consumer_offsets each shard
// runs its own groups' expiry on a timer instead (scheduleExpiry).
func (c *Coordinator) maybeExpireOffsets(now time.Time) {
	if c.timerRuntime() != nil {
		return
	}
	interval := c.expiryInterval()
	s := &c.offsetState
	s.mu.Lock()
	next := s.nextExpiry
	if next.IsZero() || !now.Before(next) {
		s.nextExpiry = now.Add(interval)
	}
	s.mu.Unlock()
	if next.IsZero() || now.Before(next) {
		return
	}
	c.expireOffsets(now)
}

func (c *Coordinator) expiryInterval() time.Duration {
	if c.cfg.OffsetsRetentionCheckInterval > 0 {
		return c.cfg.OffsetsRetentionCheckInterval
	}
	return DefaultConfig().OffsetsRetentionCheckInterval
}

// expireOffsets looks at every group once.
func (c *Coordinator) expireOffsets(now time.Time) {
	c.expireOffsetsOf(now, c.snapshot())
}

// expireOffsetsOf looks once at each of groups.
func (c *Coordinator) expireOffsetsOf(now time.Time, groups []*classicGroup) {
	retention := c.cfg.OffsetsRetention
	if retention <= 0 {
		retention = DefaultConfig().OffsetsRetention
	}
	for _, g := range groups {
		g.mu.Lock()
		g.expire(now, retention)
		g.mu.Unlock()
	}
}

// expire writes the group's expired offsets' tombstones, and deletes the
// group when nothing is left; the caller holds g.mu.
func (g *classicGroup) expire(now time.Time, retention time.Duration) {
	if g.state == Dead || g.c.isShareGroup(g) {
		// A share group has no offsets to expire (Kafka's
		// offsetExpirationCondition is not supported for it).
		return
	}
	g.catchUp()
	cg := g.c.consumerGroupOf(g, false)
	policy, ok := g.expiryPolicy(cg)
	if !ok {
		return
	}
	var recs []Record
	var expired []TopicPartition
	all := true
	for tp, o := range g.offsets {
		base := policy.since
		if base.IsZero() {
			base = time.UnixMilli(o.CommitTimestamp)
		}
		if policy.subscribed[tp.Topic] || now.Sub(base) < retention || g.hasPending(tp) || g.unappliedCommit(tp) {
			all = false
			continue
		}
		expired = append(expired, tp)
	}
	slices.SortFunc(expired, compareTP)
	for _, tp := range expired {
		recs = append(recs, Record{Key: offsetCommitKey(g.id, tp)})
	}
	deleteGroup := all && len(g.txn.pending) == 0 && len(g.unapplied) == 0 && g.isEmptyForExpiry(cg)
	if deleteGroup {
		recs = append(recs, g.groupTombstones(cg)...)
	}
	if len(recs) == 0 {
		return
	}
	if _, err := g.appendRecords(recs); err != nil {
		g.c.logger.Warn("writing expired offsets", "group", g.id, "err", err)
		return
	}
	if len(expired) > 0 {
		g.c.logger.Debug("expired committed offsets", "group", g.id, "partitions", len(expired))
	}
	if deleteGroup {
		g.transition(Dead, now)
		g.offsets = map[TopicPartition]CommittedOffset{}
		g.pending = map[string]time.Time{}
		g.c.dropConsumerGroup(g)
		g.c.drop(g)
	}
}

// expiryPolicy is Kafka's offsetExpirationCondition and
// isSubscribedToTopic for the group; ok is false when none of its
// offsets may expire.
func (g *classicGroup) expiryPolicy(cg *consumerGroup) (expiryPolicy, bool) {
	if cg != nil {
		subscribed := map[string]bool{}
		for _, m := range cg.members {
			for _, t := range m.topics {
				subscribed[t] = true
			}
		}
		if len(cg.members) > 0 {
			// The target's topics include those matched by regexes.
			for t := range cg.partitionCounts {
				subscribed[t] = true
			}
		}
		return expiryPolicy{subscribed: subscribed}, true
	}
	switch {
	case g.protocolType == "":
		return expiryPolicy{}, true
	case g.state == Empty:
		return expiryPolicy{since: g.stateSince}, true
	case g.protocolType == "consumer" && g.state == Stable:
		subscribed := g.subscribedTopics()
		if subscribed == nil {
			return expiryPolicy{}, false
		}
		return expiryPolicy{subscribed: subscribed}, true
	}
	return expiryPolicy{}, false
}

// isEmptyForExpiry: a group with no members may be deleted.
func (g *classicGroup) isEmptyForExpiry(cg *consumerGroup) bool {
	if cg != nil && len(cg.members) > 0 {
		return false
	}
	return g.state == Empty
}

// groupTombstones are the records that delete the group itself: a
// consumer group's records (consumer_persist.go), then the classic
// group's metadata, as Kafka's createGroupTombstoneRecords.
func (g *classicGroup) groupTombstones(cg *consumerGroup) []Record {
	var recs []Record
	if cg != nil {
		recs = cg.tombstones()
	}
	return append(recs, Record{Key: groupMetadataKey(g.id)})
}

// dropConsumerGroup forgets the consumer-protocol state of a deleted
// group; the caller holds g.mu.
func (c *Coordinator) dropConsumerGroup(g *classicGroup) {
	c.mu.Lock()
	if s := g.shard; s != nil && s.consumer[g.id] != nil && s.consumer[g.id].holder == g {
		delete(s.consumer, g.id)
	}
	c.mu.Unlock()
}
