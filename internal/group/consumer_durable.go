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
	rec, ok, err := decodeConsumerRecord(key, value)
	if !ok || err != nil || rec.Type == keyConsumerGroupPartitionMetadata {
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
	g.durableConsumer.replay(rec, value, ids, g.c.consumerConfig(g.id), g.c.clock.Now())
}

// committedConsumerGroup is the consumer group as its durable records
// make it, or nil; the caller holds g.mu.
func (g *classicGroup) committedConsumerGroup() *consumerGroup {
	g.catchUp()
	return g.durableConsumer
}
