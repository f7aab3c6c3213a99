package group

import (
	"bytes"
	"maps"
	"slices"
)

// metadataRecord is the member's ConsumerGroupMemberMetadataValue.
func (m *consumerMember) metadataRecord() *memberMetadataValue {
	v := &memberMetadataValue{InstanceID: m.instanceID, RackID: m.rackID, ClientID: m.clientID,
		ClientHost: m.clientHost, SubscribedTopics: m.topics, RebalanceTimeout: int32(m.rebalanceTimeout.Milliseconds())}
	if v.SubscribedTopics == nil {
		v.SubscribedTopics = []string{}
	}
	if m.regex != "" {
		re := m.regex
		v.SubscribedRegex = &re
	}
	if m.serverAssignor != "" {
		a := m.serverAssignor
		v.ServerAssignor = &a
	}
	return v
}

// currentRecord is the member's ConsumerGroupCurrentMemberAssignmentValue
// (a static member that left has epoch -2 there, as in Kafka).
func (m *consumerMember) currentRecord(ids TopicIDs) *currentAssignmentValue {
	return &currentAssignmentValue{MemberEpoch: m.epoch, PreviousMemberEpoch: m.prevEpoch, State: int8(m.state),
		Assigned: toTopicPartitions(m.assigned, ids), PendingRevocation: toTopicPartitions(m.revoking, ids)}
}

// A KIP-848 operation (heartbeat, leave, session expiry) works on a
// copy of the group (next), and the live group changes only by replaying
// the records that carry the difference, once they are appended: the
// same replay that loads the group, as Kafka's GroupMetadataManager
// returns a CoordinatorResult whose records its replay applies. So the
// live group is always what its records make it, and a write that fails
// leaves it as it was. What no record holds (session and revocation
// deadlines, the resolved partition counts) is taken from next as it is.

// clone returns a copy of the group that an operation can change freely.
func (g *consumerGroup) clone() *consumerGroup {
	n := *g
	n.members = make(map[string]*consumerMember, len(g.members))
	for id, m := range g.members {
		c := *m
		c.assigned, c.revoking = cloneAssignment(m.assigned), cloneAssignment(m.revoking)
		n.members[id] = &c
	}
	n.static = maps.Clone(g.static)
	n.target = make(map[string]MemberAssignment, len(g.target))
	for id, a := range g.target {
		n.target[id] = cloneAssignment(a)
	}
	n.partitionCounts = maps.Clone(g.partitionCounts)
	return &n
}

// recordsTo returns the records that turn g into next, in Kafka's order:
// tombstones of removed members (current assignment, target, metadata),
// the metadata of touched members, the group epoch, the target
// assignment, then the touched members' current assignments. Only the
// touched members' metadata and current assignment can differ.
func (g *consumerGroup) recordsTo(next *consumerGroup, ids TopicIDs, touched []string) []Record {
	recs := goneMemberTombstones(g.id, g.members, next.members, g.target,
		keyConsumerGroupCurrentAssignment, keyConsumerGroupTargetMember, keyConsumerGroupMemberMetadata)
	for _, id := range touched {
		m := next.members[id]
		if m == nil {
			continue
		}
		v := m.metadataRecord().encode()
		if old := g.members[id]; old == nil || !bytes.Equal(v, old.metadataRecord().encode()) {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupMemberMetadata, g.id, id), Value: v})
		}
	}
	if !g.epochWritten || g.epoch != next.epoch {
		recs = append(recs, Record{Key: consumerGroupMetadataKey(g.id),
			Value: consumerGroupMetadataValue(next.epoch, metadataHash(next.partitionCounts, ids))})
	}
	// Assignments name topics by id: without a view of the ids (a test
	// store with no topics) they are not written.
	if ids == nil {
		return recs
	}
	recs = append(recs, targetAssignmentRecords(g.id, keyConsumerGroupTargetMember, keyConsumerGroupTargetMetadata,
		g.target, next.target, slices.Sorted(maps.Keys(next.members)), g.assignmentEpoch, next.assignmentEpoch, ids)...)
	for _, id := range touched {
		m := next.members[id]
		if m == nil {
			continue
		}
		v := m.currentRecord(ids).encode()
		if old := g.members[id]; old == nil || !bytes.Equal(v, old.currentRecord(ids).encode()) {
			recs = append(recs, Record{Key: consumerKey(keyConsumerGroupCurrentAssignment, g.id, id), Value: v})
		}
	}
	return recs
}

// targetAssignmentRecords are the records that turn a group's target
// assignment (target at epoch) into next at nextEpoch for the members
// named, under the group type's member and metadata record keys: shared
// by consumer and share groups, whose targets are written alike.
func targetAssignmentRecords(groupID string, memberKey, metadataKey int16, target, next map[string]MemberAssignment,
	members []string, epoch, nextEpoch int32, ids TopicIDs) []Record {
	var recs []Record
	for _, id := range members {
		t, had := target[id]
		nt := next[id]
		if !had && len(nt) == 0 || had && slices.Equal(partitionsOf(t), partitionsOf(nt)) {
			continue // unchanged; an empty target is what no record means
		}
		recs = append(recs, Record{Key: consumerKey(memberKey, groupID, id), Value: targetMemberValue(toTopicPartitions(nt, ids))})
	}
	if epoch != nextEpoch {
		recs = append(recs, Record{Key: consumerKey(metadataKey, groupID), Value: targetMetadataValue(nextEpoch)})
	}
	return recs
}

// goneMemberTombstones are the tombstones of the members of was that now
// lacks, by member id: each one's current assignment, its target when it
// had one, then its metadata, the order Kafka's replay wants.
func goneMemberTombstones[M any](group string, was, now map[string]M, target map[string]MemberAssignment, current, targetType, metadata int16) []Record {
	var recs []Record
	for _, id := range slices.Sorted(maps.Keys(was)) {
		if _, ok := now[id]; ok {
			continue
		}
		recs = append(recs, Record{Key: consumerKey(current, group, id)})
		if _, ok := target[id]; ok {
			recs = append(recs, Record{Key: consumerKey(targetType, group, id)})
		}
		recs = append(recs, Record{Key: consumerKey(metadata, group, id)})
	}
	return recs
}

// write appends the records that turn g into next (after first, records
// of the id that go with them) and, once appended, replays them into g;
// the caller holds holder.mu. A failed append is logged and returned,
// and g stays as it was. The Durable waits for the records to be
// durable; nil when there were none.
func (g *consumerGroup) write(next *consumerGroup, view TopicView, first []Record, touched ...string) (Durable, error) {
	c := g.holder.c
	ids := c.idsFor(view)
	recs := append(first, g.recordsTo(next, ids, touched)...)
	var wait Durable
	if len(recs) > 0 {
		var err error
		if wait, err = g.holder.appendWrite(recs, ids, nil); err != nil {
			c.logger.Warn("writing consumer group records", "group", g.id, "err", err)
			return nil, err
		}
		if cur := c.consumerGroupOf(g.holder, false); cur != g {
			// An earlier write failed while this one was appended, and the
			// group was reverted, these records replayed over it.
			if cur != nil {
				cur.adoptDeadlines(next)
			}
			return wait, nil
		}
		cfg, now := c.consumerConfig(g.id), c.clock.Now()
		for _, r := range recs {
			if rec, ok, err := decodeConsumerRecord(r.Key, r.Value); ok && err == nil {
				g.replay(rec, ids, cfg, now)
			}
		}
	}
	g.adoptUnrecorded(next)
	return wait, nil
}

// adoptUnrecorded takes from next what no record holds: the members'
// deadlines and the partition counts the target was computed from.
func (g *consumerGroup) adoptUnrecorded(next *consumerGroup) {
	g.partitionCounts, g.countsPending, g.loadedHash = next.partitionCounts, next.countsPending, next.loadedHash
	g.regexTopics = next.regexTopics
	g.adoptDeadlines(next)
}

// adoptDeadlines takes the session and revocation deadlines of the
// members next has, and their describe checks (no record holds those
// either).
func (g *consumerGroup) adoptDeadlines(next *consumerGroup) {
	for id, m := range g.members {
		if n := next.members[id]; n != nil {
			m.sessionDeadline, m.revokeDeadline = n.sessionDeadline, n.revokeDeadline
			m.mayDescribe = n.mayDescribe
			// On __consumer_offsets, the member's timers are keyed by its
			// id and already set at n's deadlines.
			g.armReplayed(m)
		}
	}
}

// tombstones are the records that delete the group, in Kafka's order
// (ConsumerGroup.createGroupTombstoneRecords): current assignments,
// targets, the target's epoch, members' metadata, the partition metadata
// of Kafka before 4.1, and the group epoch.
func (g *consumerGroup) tombstones() []Record {
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var recs []Record
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupCurrentAssignment, g.id, id)})
	}
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMember, g.id, id)})
	}
	recs = append(recs, Record{Key: consumerKey(keyConsumerGroupTargetMetadata, g.id)})
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyConsumerGroupMemberMetadata, g.id, id)})
	}
	recs = append(recs, Record{Key: consumerKey(keyConsumerGroupPartitionMetadata, g.id)},
		Record{Key: consumerGroupMetadataKey(g.id)})
	return recs
}

// yieldToClassic deletes an empty consumer group when a classic member
// joins its id, as Kafka converts an empty consumer group to a classic
// one, writing the consumer group's tombstones; the caller holds
// holder.mu.
func (c *Coordinator) yieldToClassic(holder *classicGroup) {
	g := c.consumerGroupOf(holder, false)
	if g == nil || g.active() {
		return
	}
	if _, err := holder.appendRecords(g.tombstones()); err != nil {
		c.logger.Warn("writing consumer group tombstones", "group", holder.id, "err", err)
	}
	c.dropConsumerGroup(holder)
}
