package group

import (
	"regexp"
	"time"
)

// loadConsumerRecord replays a consumer-protocol record (types 3 to 8)
// found while loading, and reports whether it was one. It is replayed
// into the group's durable view by replayConsumer, as every durable
// write is (consumer_durable.go); once the load ends the live group is
// that view (adoptLoadedConsumers). The group comes back with its
// members, their epochs, subscriptions and current assignments, and the
// target assignment, so members heartbeating with their epochs carry on
// without a rebalance. As in Kafka, every member's session timer starts
// again at load, and so does the rebalance timer of members that still
// have partitions to revoke.
func (c *Coordinator) loadConsumerRecord(s *groupShard, key, value []byte, now time.Time) (groupID string, ok bool) {
	rec, ok, err := decodeConsumerRecord(key, value)
	if !ok {
		return "", false
	}
	if err != nil {
		c.logger.Warn("skipping a malformed consumer group record", "type", rec.Type, "group", rec.Group)
		return "", true
	}
	if rec.Type == keyConsumerGroupPartitionMetadata {
		return "", true // the partition counts come from the topics themselves
	}
	holder, _ := c.shardGroup(s, rec.Group, !rec.Tombstone)
	if holder == nil {
		return "", true // a tombstone of a group already gone
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	had := holder.durableConsumer != nil
	holder.replayConsumer(rec, c.topics())
	switch {
	case !rec.Tombstone:
		if holder.state == Dead {
			holder.transition(Empty, now)
		}
	case had && rec.Type == keyConsumerGroupMetadata:
		// The group is deleted; what is left of the id is its offsets,
		// if any (Load forgets a Dead group without them).
		if len(holder.offsets) == 0 && holder.generation == 0 && holder.protocolType == "" {
			holder.transition(Dead, now)
		}
	}
	return rec.Group, true
}

// adoptLoadedConsumers makes each loaded group's live KIP-848 state its
// durable view, as replayed by the load.
func (c *Coordinator) adoptLoadedConsumers(loaded []*classicGroup) {
	for _, g := range loaded {
		g.mu.Lock()
		if g.durableConsumer != nil {
			c.setConsumerGroup(g, g.durableConsumer.clone())
		} else {
			c.dropConsumerGroup(g)
		}
		g.mu.Unlock()
	}
}

func (g *consumerGroup) replay(rec consumerRecord, ids TopicIDs, cfg ConsumerConfig, now time.Time) {
	switch rec.Type {
	case keyConsumerGroupMetadata:
		g.epoch, g.loadedHash, g.countsPending = rec.Epoch, rec.MetadataHash, true
		g.partitionCounts = map[string]int32{}
		g.epochWritten = true
	case keyConsumerGroupTargetMetadata:
		if rec.Tombstone {
			rec.Epoch = 0
		}
		g.assignmentEpoch = rec.Epoch
	case keyConsumerGroupTargetMember:
		if rec.Tombstone {
			delete(g.target, rec.Member)
			return
		}
		g.target[rec.Member] = fromTopicPartitions(rec.Target, ids)
	case keyConsumerGroupMemberMetadata:
		if rec.Tombstone {
			if m := g.members[rec.Member]; m != nil {
				delete(g.members, m.id)
				if m.instanceID != nil && g.static[*m.instanceID] == m.id {
					delete(g.static, *m.instanceID)
				}
			}
			g.chooseAssignor()
			return
		}
		m := g.loadedMember(rec.Member, cfg, now)
		v := rec.Member5
		if m.instanceID != nil && g.static[*m.instanceID] == m.id {
			delete(g.static, *m.instanceID)
		}
		m.instanceID, m.rackID, m.clientID, m.clientHost = v.InstanceID, v.RackID, v.ClientID, v.ClientHost
		if m.instanceID != nil {
			g.static[*m.instanceID] = m.id
		}
		m.topics = v.SubscribedTopics
		m.regex, m.compiled = "", nil
		if v.SubscribedRegex != nil && *v.SubscribedRegex != "" {
			m.regex = *v.SubscribedRegex
			// A regex Go cannot compile subscribes to nothing here.
			m.compiled, _ = regexp.Compile("^(?:" + m.regex + ")$")
		}
		if v.RebalanceTimeout > 0 {
			m.rebalanceTimeout = time.Duration(v.RebalanceTimeout) * time.Millisecond
		}
		m.serverAssignor = ""
		if v.ServerAssignor != nil {
			m.serverAssignor = *v.ServerAssignor
		}
		g.chooseAssignor()
	case keyConsumerGroupCurrentAssignment:
		m := g.members[rec.Member]
		if rec.Tombstone {
			if m != nil {
				m.epoch, m.prevEpoch, m.state, m.left = 0, 0, memberStable, false
				m.assigned, m.revoking = MemberAssignment{}, MemberAssignment{}
			}
			return
		}
		if m == nil {
			m = g.loadedMember(rec.Member, cfg, now)
		}
		v := rec.Current
		// A static member that left (epoch -2) keeps its place until its
		// session lapses.
		m.epoch, m.prevEpoch, m.left = v.MemberEpoch, v.PreviousMemberEpoch, v.MemberEpoch == -2
		m.state = memberStable
		if v.State >= 0 && int(v.State) < len(memberStateNames) {
			m.state = memberState(v.State)
		}
		m.assigned = fromTopicPartitions(v.Assigned, ids)
		m.revoking = fromTopicPartitions(v.PendingRevocation, ids)
		m.revokeDeadline = time.Time{}
		if m.state == memberUnrevoked {
			m.revokeDeadline = now.Add(m.rebalanceTimeout)
			g.armReplayedTimer(groupTimer{revokeTimer, m.id}, m.revokeDeadline)
		}
	}
}

// loadedMember returns the member being replayed, creating it with its
// session timer started.
func (g *consumerGroup) loadedMember(id string, cfg ConsumerConfig, now time.Time) *consumerMember {
	if m := g.members[id]; m != nil {
		return m
	}
	m := &consumerMember{id: id, assigned: MemberAssignment{}, revoking: MemberAssignment{},
		rebalanceTimeout: 5 * time.Minute, sessionDeadline: now.Add(cfg.SessionTimeout)}
	g.members[id] = m
	g.armReplayedTimer(groupTimer{sessionTimer, m.id}, m.sessionDeadline)
	return m
}

// resolveCounts settles the partition counts of a loaded group at its
// first look at the topics: unchanged since the group was written, they
// are taken as they are; otherwise they stay unknown, and the change
// bumps the group epoch as any change of the topics does.
func (g *consumerGroup) resolveCounts(md map[string]int32, ids TopicIDs) {
	g.countsPending = false
	if metadataHash(md, ids) == g.loadedHash {
		g.partitionCounts = md
	}
}
