package group

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// consumerGroups is the settings of the coordinator's KIP-848 groups,
// guarded by Coordinator.mu; the groups are their shards'.
type consumerGroups struct {
	cfg    ConsumerConfig
	cfgSet bool
	// perGroup, if set, applies a group's own configs (see
	// SetConsumerGroupConfigs).
	perGroup func(groupID string, broker ConsumerConfig) ConsumerConfig
}

// SetConsumerConfig sets the group.consumer.* settings; call it before
// serving.
func (c *Coordinator) SetConsumerConfig(cfg ConsumerConfig) {
	c.mu.Lock()
	c.consumer.cfg, c.consumer.cfgSet = cfg, true
	c.mu.Unlock()
}

// SetConsumerGroupConfigs sets where a group's own configs come from
// (GROUP resources, KIP-848): perGroup returns the settings for one group
// given the broker-wide ones, so consumer.session.timeout.ms and
// consumer.heartbeat.interval.ms set on a group apply to its members.
func (c *Coordinator) SetConsumerGroupConfigs(perGroup func(groupID string, broker ConsumerConfig) ConsumerConfig) {
	c.mu.Lock()
	c.consumer.perGroup = perGroup
	c.mu.Unlock()
}

// consumerConfig returns the settings for one group: the broker's, with
// the group's own configs over them.
func (c *Coordinator) consumerConfig(groupID string) ConsumerConfig {
	c.mu.RLock()
	cfg, perGroup := c.consumer.cfg, c.consumer.perGroup
	if !c.consumer.cfgSet {
		cfg = DefaultConsumerConfig()
	}
	c.mu.RUnlock()
	if perGroup != nil {
		cfg = perGroup(groupID, cfg)
	}
	return cfg
}

// consumerGroupOf returns the consumer state of a group id, creating it
// when create is set; the caller holds holder.mu.
func (c *Coordinator) consumerGroupOf(holder *classicGroup, create bool) *consumerGroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := holder.shard
	if s == nil {
		return nil
	}
	g := s.consumer[holder.id]
	if g != nil && g.holder != holder {
		// The classic group was deleted and created anew.
		g = nil
		delete(s.consumer, holder.id)
	}
	if g == nil && create {
		g = newConsumerGroup(holder)
		s.consumer[holder.id] = g
	}
	return g
}

// setConsumerGroup makes g the consumer state of holder's id; the caller
// holds holder.mu.
func (c *Coordinator) setConsumerGroup(holder *classicGroup, g *consumerGroup) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if holder.shard != nil {
		holder.shard.consumer[holder.id] = g
	}
}

// activeConsumerGroup returns the consumer group with members for the
// holder, or nil; the caller holds holder.mu.
func (c *Coordinator) activeConsumerGroup(holder *classicGroup) *consumerGroup {
	if g := c.consumerGroupOf(holder, false); g != nil && g.active() {
		return g
	}
	return nil
}

// ConsumerHeartbeat handles a ConsumerGroupHeartbeat: joins, leaves,
// subscription changes and the member's progress toward its target
// assignment.
func (c *Coordinator) ConsumerHeartbeat(req ConsumerHeartbeat) ConsumerHeartbeatResult {
	cfg := c.consumerConfig(req.GroupID)
	fail := func(err *kerr.Error, msg string) ConsumerHeartbeatResult {
		return ConsumerHeartbeatResult{Err: err, ErrMessage: msg, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}
	}
	if req.GroupID == "" {
		return fail(kerr.InvalidGroupID, "GroupId can't be empty.")
	}
	if err := c.unavailable(req.GroupID); err != nil {
		return fail(err, "")
	}
	if req.MemberID == "" {
		return fail(kerr.InvalidRequest, "MemberId can't be empty.")
	}
	if req.ServerAssignor != nil && *req.ServerAssignor != "" && assignorNamed(*req.ServerAssignor) == nil {
		return fail(kerr.UnsupportedAssignor, fmt.Sprintf("ServerAssignor %s is not supported.", *req.ServerAssignor))
	}
	var compiled *regexp.Regexp
	if req.SubscribedRegex != nil && *req.SubscribedRegex != "" {
		re, err := regexp.Compile("^(?:" + *req.SubscribedRegex + ")$")
		if err != nil {
			return fail(kerr.InvalidRegularExpression, err.Error())
		}
		compiled = re
	}
	if req.MemberEpoch == 0 && req.SubscribedTopics == nil && req.SubscribedRegex == nil {
		return fail(kerr.InvalidRequest, "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.")
	}
	holder := c.group(req.GroupID, req.MemberEpoch == 0)
	if holder == nil {
		// Only a join (epoch 0) creates a group; Kafka answers any other epoch, a leave
		// included, for a group it does not know with GROUP_ID_NOT_FOUND.
		return fail(kerr.GroupIDNotFound, fmt.Sprintf("Group %s not found.", req.GroupID))
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	if holder.state == Dead {
		return fail(kerr.CoordinatorNotAvailable, "")
	}
	if c.isShareGroup(holder) {
		return fail(kerr.GroupIDNotFound, fmt.Sprintf("Group %s is not a consumer group.", req.GroupID))
	}
	if len(holder.members) > 0 {
		// Kafka converts a classic group whose members all use the consumer
		// protocol (group.consumer.migration.policy); this coordinator does
		// not, and answers as Kafka does with the policy "disabled".
		return fail(kerr.GroupIDNotFound, fmt.Sprintf("Cannot upgrade classic group %s to consumer group because online upgrade is disabled.", req.GroupID))
	}
	// Records of earlier writes that failed since are dropped first, so
	// the heartbeat is checked against the group as it is now.
	holder.catchUp()
	existed := c.consumerGroupOf(holder, false) != nil
	live := c.consumerGroupOf(holder, req.MemberEpoch == 0)
	if live == nil {
		return fail(kerr.GroupIDNotFound, fmt.Sprintf("Group %s is not a consumer group", req.GroupID))
	}
	res := c.consumerHeartbeat(holder, live, req, compiled, cfg, !existed)
	if cur := c.consumerGroupOf(holder, false); cur != nil && !cur.epochWritten {
		// A group none of whose records were written does not exist.
		c.dropConsumerGroup(holder)
	}
	return res
}

// consumerHeartbeat validates a heartbeat against the live group, works
// its changes out on a copy, and writes them (consumer_write.go); the
// caller holds holder.mu. created: the group is new to this heartbeat.
func (c *Coordinator) consumerHeartbeat(holder *classicGroup, live *consumerGroup, req ConsumerHeartbeat, compiled *regexp.Regexp, cfg ConsumerConfig, created bool) ConsumerHeartbeatResult {
	fail := func(err *kerr.Error, msg string) ConsumerHeartbeatResult {
		return ConsumerHeartbeatResult{Err: err, ErrMessage: msg, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}
	}
	var first []Record
	converting := created && (holder.protocolType != "" || holder.generation > 0)
	if converting {
		// An empty classic group becomes a consumer group: its metadata is
		// deleted, as Kafka does; its offsets stay.
		first = append(first, Record{Key: groupMetadataKey(holder.id)})
	}
	converted := func(res ConsumerHeartbeatResult) ConsumerHeartbeatResult {
		if converting && res.Err == nil {
			holder.generation, holder.protocolType, holder.protocol, holder.leader = 0, "", "", ""
		}
		return res
	}
	g := live.clone()
	now := c.clock.Now()
	if req.MemberEpoch < 0 {
		c.logger.Info("member leaving consumer group", "group", req.GroupID, "member", req.MemberID, "member_epoch", req.MemberEpoch)
		return converted(live.leave(g, req, first))
	}
	m := g.members[req.MemberID]
	bumped := false
	if req.MemberEpoch == 0 {
		var err *kerr.Error
		if m, bumped, err = g.join(req, cfg, now); err != nil {
			return fail(err, "")
		}
		c.logger.Info("member joined consumer group", "group", req.GroupID, "member", req.MemberID,
			"client_id", req.ClientID, "client_host", req.ClientHost)
	} else {
		if m == nil {
			return fail(kerr.UnknownMemberID, fmt.Sprintf("Member %s is not a member of group %s.", req.MemberID, req.GroupID))
		}
		if err := m.checkEpoch(req); err != nil {
			return fail(err, "")
		}
	}
	if m.updateSubscription(req, compiled) {
		bumped = true
	}
	m.mayDescribe = req.MayDescribe
	if g.refreshMetadata(req.Topics) {
		bumped = true
	}
	if bumped {
		g.epoch++
		c.logger.Info("rebalancing consumer group: new group epoch", "group", req.GroupID, "group_epoch", g.epoch, "members", len(g.members))
	}
	m.clientID, m.clientHost = req.ClientID, req.ClientHost
	if req.RackID != nil {
		m.rackID = req.RackID
	}
	if req.RebalanceTimeout > 0 {
		m.rebalanceTimeout = req.RebalanceTimeout
	}
	m.sessionDeadline = now.Add(cfg.SessionTimeout)
	var before []TopicPartition
	if old := live.members[m.id]; old != nil {
		before = partitionsOf(old.assigned)
	}
	g.computeTarget()
	g.reconcile(m, req.Owned, req.OwnedSent, now)
	wait, err := live.write(g, req.Topics, first, m.id)
	if err != nil {
		// Kafka fails the heartbeat when its records are not written (the
		// state they carry is not answered); the member asks again with
		// what it had.
		return fail(kerr.CoordinatorNotAvailable, "")
	}
	// Once written, as Kafka schedules the session in the heartbeat's
	// operation: a heartbeat that failed leaves the session where it was.
	g.armSession(m)
	res := ConsumerHeartbeatResult{MemberID: m.id, MemberEpoch: m.epoch, HeartbeatInterval: cfg.HeartbeatInterval, Wait: wait}
	// As Kafka: the assignment is sent to a join, to a full request and
	// when it changed; otherwise null, which means "unchanged".
	if req.MemberEpoch == 0 || req.Full || !slices.Equal(before, partitionsOf(m.assigned)) {
		res.Assignment = cloneAssignment(m.assigned)
	}
	return converted(res)
}

// join admits a member with epoch 0: a new one, a static member coming
// back under a new member id, or a member that lost its state.
func (g *consumerGroup) join(req ConsumerHeartbeat, cfg ConsumerConfig, now time.Time) (*consumerMember, bool, *kerr.Error) {
	if m := g.members[req.MemberID]; m != nil {
		// The member restarted: what it owned is given up (it says it
		// owns nothing), and it reconciles from scratch.
		m.assigned, m.revoking, m.state, m.epoch, m.left = MemberAssignment{}, MemberAssignment{}, memberStable, 0, false
		return m, false, nil
	}
	if req.InstanceID != nil {
		if oldID, ok := g.static[*req.InstanceID]; ok {
			old := g.members[oldID]
			if !old.left {
				return nil, false, kerr.UnreleasedInstanceID
			}
			// The new incarnation takes over the old one's place, epoch and
			// assignment, without a rebalance.
			delete(g.members, oldID)
			m := *old
			// As in Kafka, it starts again from epoch 0 with the partitions
			// the old one was assigned, and reconciles from there.
			m.id, m.left, m.epoch, m.prevEpoch = req.MemberID, false, 0, 0
			g.members[m.id] = &m
			g.static[*req.InstanceID] = m.id
			if t, ok := g.target[oldID]; ok {
				g.target[m.id] = t
				delete(g.target, oldID)
			}
			return &m, false, nil
		}
	}
	if len(g.members) >= cfg.MaxSize {
		return nil, false, kerr.GroupMaxSizeReached
	}
	m := &consumerMember{id: req.MemberID, instanceID: req.InstanceID, assigned: MemberAssignment{},
		revoking: MemberAssignment{}, rebalanceTimeout: 5 * time.Minute, sessionDeadline: now.Add(cfg.SessionTimeout)}
	g.members[m.id] = m
	if m.instanceID != nil {
		g.static[*m.instanceID] = m.id
	}
	return m, true, nil
}

// checkEpoch validates a heartbeat's epoch as Kafka does: the current
// one, or the previous one when the member owns nothing beyond what it
// is assigned (its answer to the bump was lost).
func (m *consumerMember) checkEpoch(req ConsumerHeartbeat) *kerr.Error {
	switch {
	case req.MemberEpoch == m.epoch:
		return nil
	case req.MemberEpoch > m.epoch:
		return kerr.FencedMemberEpoch
	case req.MemberEpoch == m.prevEpoch && req.OwnedSent:
		for _, tp := range req.Owned {
			if !hasPartition(m.assigned, tp) {
				return kerr.FencedMemberEpoch
			}
		}
		return nil
	}
	return kerr.FencedMemberEpoch
}

// updateSubscription applies the subscription fields that were sent and
// reports whether anything changed.
func (m *consumerMember) updateSubscription(req ConsumerHeartbeat, compiled *regexp.Regexp) bool {
	changed := false
	if req.SubscribedTopics != nil {
		ts := slices.Clone(req.SubscribedTopics)
		slices.Sort(ts)
		ts = slices.Compact(ts)
		if !slices.Equal(ts, m.topics) {
			m.topics, changed = ts, true
		}
	}
	if req.SubscribedRegex != nil && *req.SubscribedRegex != m.regex {
		m.regex, m.compiled, changed = *req.SubscribedRegex, compiled, true
	}
	if req.ServerAssignor != nil && *req.ServerAssignor != m.serverAssignor {
		m.serverAssignor, changed = *req.ServerAssignor, true
	}
	return changed
}

// leave handles epoch -1 (leave) and -2 (a static member leaving for a
// while, keeping its assignment for its instance id), working on next, a
// copy of g.
func (g *consumerGroup) leave(next *consumerGroup, req ConsumerHeartbeat, first []Record) ConsumerHeartbeatResult {
	m := next.members[req.MemberID]
	if m == nil && req.InstanceID != nil {
		m = next.members[next.static[*req.InstanceID]]
	}
	if m == nil {
		return ConsumerHeartbeatResult{Err: kerr.UnknownMemberID, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}
	}
	var wait Durable
	var err error
	if req.MemberEpoch == -2 && m.instanceID != nil {
		// Kafka keeps its assignment under epoch -2 and frees what it
		// was revoking.
		m.left, m.epoch = true, -2
		m.revoking, m.state, m.revokeDeadline = MemberAssignment{}, memberStable, time.Time{}
		wait, err = g.write(next, req.Topics, first, m.id)
	} else {
		next.removeMember(m)
		next.refreshMetadata(req.Topics)
		next.computeTarget()
		if wait, err = g.write(next, req.Topics, first); err == nil {
			g.cancelTimers(m.id)
		}
	}
	if err != nil {
		return ConsumerHeartbeatResult{Err: kerr.CoordinatorNotAvailable, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}
	}
	return ConsumerHeartbeatResult{MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, Wait: wait}
}

// tick removes the members whose session lapsed and those that did not
// revoke within their rebalance timeout; the group's timer
// (fireShardTimer) calls it with the holder's mu held.
func (g *consumerGroup) tick(now time.Time, view Topics) {
	ids := make([]string, 0, len(g.members))
	for id, m := range g.members {
		if due(m.sessionDeadline, now) || m.state == memberUnrevoked && due(m.revokeDeadline, now) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	slices.Sort(ids)
	next := g.clone()
	for _, id := range ids {
		next.removeMember(next.members[id])
	}
	var tv TopicView
	if view != nil {
		tv = view
		next.refreshMetadata(tv)
	}
	next.computeTarget()
	if _, err := g.write(next, tv, nil); err == nil {
		for _, id := range ids {
			g.cancelTimers(id)
		}
	}
}

// validateConsumerCommit checks an OffsetCommit against a consumer
// group: the member must exist, and the generation is its epoch (or the
// one before, which a commit racing an epoch bump still carries).
func (g *consumerGroup) validateCommit(req CommitRequest) *kerr.Error {
	if req.Generation < 0 && req.MemberID == "" {
		return kerr.UnknownMemberID
	}
	m := g.members[req.MemberID]
	if m == nil {
		return kerr.UnknownMemberID
	}
	if req.Generation != m.epoch && req.Generation != m.prevEpoch {
		return kerr.StaleMemberEpoch
	}
	return nil
}
