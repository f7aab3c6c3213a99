package group

import "encoding/binary"

// A KIP-848 group is read as its durable records make it: the records a
// heartbeat appends are replayed, once durable, into the group's durable
// view (classicGroup.durableConsumer) by the replay Load uses, and
// ConsumerGroupDescribe and ListGroups read that view, as Kafka's read
// at the last committed offset of its timeline. A group whose first
// records are not durable yet is not found. Heartbeats still work on
// the group as written (consumerGroup), Kafka's latest state.

// isConsumerRecord reports whether key is of a KIP-848 record.
func isConsumerRecord(key []byte) bool {
	return len(key) >= 2 && isConsumerRecordType(int16(binary.BigEndian.Uint16(key)))
}

// replayDurableConsumer applies one durable KIP-848 record, its topics
// named by ids, to the group's durable view; the caller holds g.mu.
// Malformed records (load counts them) are skipped.
func (g *classicGroup) replayDurableConsumer(key, value []byte, ids TopicIDs) {
	if rec, ok, err := decodeConsumerRecord(key, value); ok && err == nil {
		g.replayConsumer(rec, ids)
	}
}

// replayConsumer applies one decoded KIP-848 record to the group's
// durable view: the one function that replays them, at load and for
// every durable write. The caller holds g.mu.
func (g *classicGroup) replayConsumer(rec consumerRecord, ids TopicIDs) {
	if rec.Type == keyConsumerGroupPartitionMetadata {
		return
	}
	if rec.Tombstone && rec.Type == keyConsumerGroupMetadata {
		g.durableConsumer = nil
		return
	}
	if g.durableConsumer == nil {
		if rec.Tombstone {
			return
		}
		g.durableConsumer = newConsumerGroup(g)
	}
	g.durableConsumer.replay(rec, ids, g.c.consumerConfig(g.id), g.c.clock.Now())
}

// committedConsumerGroup is the consumer group as its durable records
// make it, or nil; the caller holds g.mu.
func (g *classicGroup) committedConsumerGroup() *consumerGroup {
	g.catchUp()
	return g.durableConsumer
}

// revertConsumer sets the group's live KIP-848 state back to its durable
// view with the records still awaiting durability replayed over it, when
// records the live state had replayed never became durable: Kafka
// reverts its timeline to the last committed offset the same way. The
// members keep their session deadlines. The caller holds g.mu.
func (g *classicGroup) revertConsumer() {
	live := g.c.consumerGroupOf(g, false)
	next := newConsumerGroup(g)
	if g.durableConsumer != nil {
		next = g.durableConsumer.clone()
	}
	cfg, now := g.c.consumerConfig(g.id), g.c.clock.Now()
	for _, w := range g.unapplied {
		if w == nil || w.err != nil {
			continue
		}
		ids := w.ids
		if ids == nil {
			ids = g.c.topics()
		}
		for _, r := range w.consumer {
			if rec, ok, err := decodeConsumerRecord(r.Key, r.Value); ok && err == nil {
				next.replay(rec, ids, cfg, now)
			}
		}
	}
	if !next.epochWritten {
		g.c.dropConsumerGroup(g)
		return
	}
	if live != nil {
		next.adoptDeadlines(live)
	}
	g.c.setConsumerGroup(g, next)
	for id, m := range next.members {
		if live == nil || live.members[id] == nil {
			// A member only the durable records know (the live group was
			// reverted past it): its session, started by the replay, is
			// timed from here.
			next.armSession(m)
			next.armRevocation(m)
		}
	}
}
