package group

import (
	"encoding/binary"
	"time"
)

// keyConsumerGroupMetadata is the record type of ConsumerGroupMetadataKey
// in __consumer_offsets. Only this record of the consumer protocol is
// written so far: it carries the group epoch, so epochs keep growing
// across a restart. Members and assignments (record types 4 to 8) are
// not persisted; members rejoin after a restart (their next heartbeat is
// UNKNOWN_MEMBER_ID), as they do when Kafka fails over to a coordinator
// that lost them.
const keyConsumerGroupMetadata = 3

// consumerGroupMetadataKey encodes ConsumerGroupMetadataKey v0: the
// record type, then the group id as a non-flexible string.
func consumerGroupMetadataKey(group string) []byte {
	b := make([]byte, 0, 4+len(group))
	b = binary.BigEndian.AppendUint16(b, keyConsumerGroupMetadata)
	b = binary.BigEndian.AppendUint16(b, uint16(len(group)))
	return append(b, group...)
}

// consumerGroupMetadataValue encodes ConsumerGroupMetadataValue v0
// (flexible): version, epoch, and no tagged fields (MetadataHash keeps
// its default 0, which tells Kafka to recompute it).
func consumerGroupMetadataValue(epoch int32) []byte {
	b := make([]byte, 0, 7)
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(epoch))
	return append(b, 0)
}

// decodeConsumerGroupMetadata reads a ConsumerGroupMetadata record; ok
// is false for any other record type or a malformed one. tombstone
// reports a nil value.
func decodeConsumerGroupMetadata(key, value []byte) (group string, epoch int32, tombstone, ok bool) {
	if len(key) < 4 || binary.BigEndian.Uint16(key) != keyConsumerGroupMetadata {
		return "", 0, false, false
	}
	n := int(binary.BigEndian.Uint16(key[2:]))
	if n > len(key)-4 || int16(binary.BigEndian.Uint16(key[2:])) < 0 {
		return "", 0, false, false
	}
	group = string(key[4 : 4+n])
	if value == nil {
		return group, 0, true, true
	}
	// Version 0 only; tagged fields after the epoch are ignored.
	if len(value) < 6 || binary.BigEndian.Uint16(value) != 0 {
		return "", 0, false, false
	}
	return group, int32(binary.BigEndian.Uint32(value[2:])), false, true
}

// loadConsumerRecord applies a consumer-protocol record found while
// loading, and reports whether it was one.
func (c *Coordinator) loadConsumerRecord(key, value []byte, now time.Time) bool {
	id, epoch, tombstone, ok := decodeConsumerGroupMetadata(key, value)
	if !ok {
		return false
	}
	holder := c.group(id, true)
	holder.mu.Lock()
	defer holder.mu.Unlock()
	if holder.state == Dead {
		holder.transition(Empty, now)
	}
	if tombstone {
		c.mu.Lock()
		delete(c.consumer.groups, id)
		c.mu.Unlock()
		return true
	}
	g := c.consumerGroupOf(holder, true)
	g.epoch, g.assignmentEpoch = epoch, epoch
	return true
}

// persistEpoch writes the group epoch, best effort: a failed write is
// logged, and the epoch still moves on in memory.
func (g *consumerGroup) persistEpoch() {
	c := g.holder.c
	if _, err := c.append(g.id, []Record{{Key: consumerGroupMetadataKey(g.id), Value: consumerGroupMetadataValue(g.epoch)}}); err != nil {
		c.logger.Warn("writing consumer group epoch", "group", g.id, "err", err)
	}
}
