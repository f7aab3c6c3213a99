package group

import (
	"bytes"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// replayMetadata brings a classic group back to what its GroupMetadataValue
// says: as Kafka replays the record, a group with members is Stable at the
// recorded generation with its leader, protocol and each member's
// assignment, so members that carry on heartbeating with their id and
// generation need no rebalance; a group without members is Empty. A nil
// value (a tombstone) leaves the generation at 0 and no members. The
// caller holds g.mu; session timers start when the load ends
// (startLoadedSessions).
func (g *classicGroup) replayMetadata(v *kmsg.GroupMetadataValue, now time.Time) {
	g.members, g.order, g.static = map[string]*member{}, nil, map[string]string{}
	g.pending, g.pendingSync = map[string]time.Time{}, map[string]bool{}
	g.joinDeadline, g.syncDeadline, g.initialJoin = time.Time{}, time.Time{}, false
	g.leader = ""
	if v == nil {
		g.generation, g.protocolType, g.protocol = 0, "", ""
		g.state = Empty
		if len(g.offsets) == 0 {
			g.state = Dead
		}
		return
	}
	g.generation = v.Generation
	g.protocolType = v.ProtocolType
	g.protocol = ""
	if len(v.Members) > 0 && v.Protocol != nil {
		g.protocol = *v.Protocol
	}
	g.stateSince = now
	if v.CurrentStateTimestamp > 0 {
		g.stateSince = time.UnixMilli(v.CurrentStateTimestamp)
	}
	for i := range v.Members {
		vm := &v.Members[i]
		if _, dup := g.members[vm.MemberID]; dup || vm.MemberID == "" {
			continue
		}
		g.members[vm.MemberID] = loadedMember(vm, v.ProtocolType, g.protocol)
		g.order = append(g.order, vm.MemberID)
		if id := g.members[vm.MemberID].instanceID; id != nil {
			g.static[*id] = vm.MemberID
		}
	}
	if v.Leader != nil && g.members[*v.Leader] != nil {
		g.leader = *v.Leader
	} else if len(g.order) > 0 {
		g.leader = g.order[0]
	}
	g.prevState, g.state = Dead, Empty
	if len(g.members) > 0 {
		g.state = Stable
	}
}

// loadedMember is a member as its group's record describes it: it
// supports the group's protocol only, with the subscription it had for
// it. The bytes are copied: the record's buffer is reused by the load.
func loadedMember(vm *kmsg.GroupMetadataValueMember, protocolType, protocol string) *member {
	m := &member{
		id: vm.MemberID, clientID: vm.ClientID, clientHost: vm.ClientHost,
		protocolType:     protocolType,
		protocols:        []Protocol{{Name: protocol, Metadata: bytes.Clone(vm.Subscription)}},
		sessionTimeout:   time.Duration(vm.SessionTimeoutMillis) * time.Millisecond,
		rebalanceTimeout: time.Duration(vm.RebalanceTimeoutMillis) * time.Millisecond,
		assignment:       bytes.Clone(vm.Assignment),
	}
	if vm.RebalanceTimeoutMillis <= 0 {
		// Version 0 of the record has no rebalance timeout; Kafka takes
		// the session timeout for it.
		m.rebalanceTimeout = m.sessionTimeout
	}
	if m.assignment == nil {
		m.assignment = []byte{}
	}
	if vm.InstanceID != nil {
		id := *vm.InstanceID
		m.instanceID = &id
	}
	return m
}

// startLoadedSessions starts the session timer of every member Load
// restored, at the time the load ends, as Kafka's onLoaded reschedules
// each member's heartbeat expiry: a member that does not come back
// expires after its session timeout and the group rebalances without it.
// A group over group.max.size (the setting may have changed) rebalances
// at once, as in Kafka.
func (c *Coordinator) startLoadedSessions(loaded []*classicGroup) {
	now := c.clock.Now()
	for _, g := range loaded {
		g.mu.Lock()
		for _, m := range g.members {
			m.deadline = now.Add(m.sessionTimeout)
		}
		g.armLoaded()
		if g.state == Stable && len(g.members) > c.cfg.MaxSize {
			g.prepareRebalance(now)
		}
		g.mu.Unlock()
	}
}
