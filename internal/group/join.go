package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Join handles a JoinGroup. The returned channel receives the one answer:
// at once for errors and MEMBER_ID_REQUIRED, otherwise when the join
// phase of the rebalance completes.
func (c *Coordinator) Join(req JoinRequest) <-chan JoinResult {
	ch := make(chan JoinResult, 1)
	fail := func(err *kerr.Error) <-chan JoinResult {
		ch <- JoinResult{Err: err, MemberID: req.MemberID, Generation: -1}
		return ch
	}
	if req.GroupID == "" {
		return fail(kerr.InvalidGroupID)
	}
	if err := c.unavailable(req.GroupID); err != nil {
		return fail(err)
	}
	if req.SessionTimeout < c.cfg.MinSessionTimeout || req.SessionTimeout > c.cfg.MaxSessionTimeout {
		return fail(kerr.InvalidSessionTimeout)
	}
	g, created := c.groupCreated(req.GroupID, req.MemberID == "")
	if g == nil {
		return fail(kerr.UnknownMemberID)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// A metadata write lost since is reverted first, so the request
	// is checked against the group as it is now.
	g.catchUp()
	now := c.clock.Now()
	switch {
	case c.isShareGroup(g):
		// Kafka's answer to a classic member joining a share group.
		ch <- JoinResult{Err: kerr.InconsistentGroupProtocol, Generation: -1}
		return ch
	case !g.acceptJoining(req.MemberID):
		return fail(kerr.GroupMaxSizeReached)
	case g.state == Dead:
		return fail(kerr.CoordinatorNotAvailable)
	case c.activeConsumerGroup(g) != nil:
		return fail(kerr.InconsistentGroupProtocol)
	case !g.supportsProtocols(req.ProtocolType, req.Protocols):
		return fail(kerr.InconsistentGroupProtocol)
	case req.MemberID == "":
		c.yieldToClassic(g)
		g.joinNew(req, ch, now)
		if created {
			g.writeNewGroup(now)
		}
	default:
		g.joinExisting(req, ch, now)
	}
	return ch
}

func (g *classicGroup) joinNew(req JoinRequest, ch chan JoinResult, now time.Time) {
	if req.InstanceID != nil {
		id := *req.InstanceID + "-" + g.c.newUUID()
		if old, ok := g.static[*req.InstanceID]; ok {
			g.replaceStaticMember(old, id, req, ch, now)
			return
		}
		g.addMember(id, req, ch, now)
		return
	}
	id := req.ClientID + "-" + g.c.newUUID()
	if req.RequireKnownMemberID {
		g.pending[id] = now.Add(req.SessionTimeout)
		g.armPending(id)
		ch <- JoinResult{Err: kerr.MemberIDRequired, MemberID: id, Generation: -1}
		return
	}
	g.addMember(id, req, ch, now)
}

func (g *classicGroup) joinExisting(req JoinRequest, ch chan JoinResult, now time.Time) {
	if _, ok := g.pending[req.MemberID]; ok {
		delete(g.pending, req.MemberID)
		g.addMember(req.MemberID, req, ch, now)
		return
	}
	if req.InstanceID != nil {
		if existing, ok := g.static[*req.InstanceID]; ok && existing != req.MemberID {
			ch <- JoinResult{Err: kerr.FencedInstanceID, MemberID: req.MemberID, Generation: -1}
			return
		} else if !ok {
			ch <- JoinResult{Err: kerr.UnknownMemberID, MemberID: req.MemberID, Generation: -1}
			return
		}
	}
	m, ok := g.members[req.MemberID]
	if !ok {
		ch <- JoinResult{Err: kerr.UnknownMemberID, MemberID: req.MemberID, Generation: -1}
		return
	}
	switch g.state {
	case PreparingRebalance:
		g.updateMember(m, req, ch, now)
	case CompletingRebalance:
		if sameProtocols(m.protocols, req.Protocols) {
			// The member missed its answer (a retry): send it again.
			ch <- g.currentJoinResult(m, m.id == g.leader)
			return
		}
		g.updateMember(m, req, ch, now)
	case Stable:
		if m.id == g.leader || !sameProtocols(m.protocols, req.Protocols) {
			// The leader rejoining asks for a new assignment, as does a
			// member whose subscription changed.
			g.updateMember(m, req, ch, now)
			return
		}
		ch <- g.currentJoinResult(m, false)
	default:
		ch <- JoinResult{Err: kerr.UnknownMemberID, MemberID: req.MemberID, Generation: -1}
	}
}

func (g *classicGroup) addMember(id string, req JoinRequest, ch chan JoinResult, now time.Time) {
	m := &member{
		id: id, instanceID: req.InstanceID, clientID: req.ClientID, clientHost: req.ClientHost,
		protocolType: req.ProtocolType, protocols: req.Protocols,
		sessionTimeout: req.SessionTimeout, rebalanceTimeout: req.RebalanceTimeout,
		isNew: true, deadline: now.Add(g.c.cfg.NewMemberJoinTimeout),
	}
	g.add(m, ch)
	g.armMember(m)
	g.c.logger.Info("member joined group", "group", g.id, "member", id, "client_id", req.ClientID,
		"client_host", req.ClientHost, "protocol_type", req.ProtocolType)
	if g.state == PreparingRebalance && g.initialJoin {
		g.newMemberAdded = true
	}
	g.maybePrepareRebalanceOrCompleteJoin(now)
}

func (g *classicGroup) updateMember(m *member, req JoinRequest, ch chan JoinResult, now time.Time) {
	// A second JoinGroup from the same member replaces the first, whose
	// connection has most likely given up on it.
	m.respondJoin(JoinResult{Err: kerr.RebalanceInProgress, MemberID: m.id, Generation: -1})
	m.protocols = req.Protocols
	m.sessionTimeout, m.rebalanceTimeout = req.SessionTimeout, req.RebalanceTimeout
	m.clientID, m.clientHost = req.ClientID, req.ClientHost
	m.join = ch
	g.maybePrepareRebalanceOrCompleteJoin(now)
}

// replaceStaticMember gives a static member that rejoined without its id
// (a restart) a new id, fencing the old one. A stable group whose member
// kept its subscription carries on without a rebalance, once the new id
// is written: if it cannot be, the old id keeps its place and the new
// incarnation is told to retry, as Kafka reverts the replacement.
func (g *classicGroup) replaceStaticMember(oldID, newID string, req JoinRequest, ch chan JoinResult, now time.Time) {
	old := g.members[oldID]
	old.respondJoin(JoinResult{Err: kerr.FencedInstanceID, MemberID: oldID, Generation: -1})
	old.respondSync(SyncResult{Err: kerr.FencedInstanceID})
	m := *old
	m.id, m.join, m.sync = newID, nil, nil
	m.clientID, m.clientHost = req.ClientID, req.ClientHost
	m.sessionTimeout, m.rebalanceTimeout = req.SessionTimeout, req.RebalanceTimeout
	m.deadline = now.Add(req.SessionTimeout)
	g.swapMember(old, &m)
	g.armMember(&m)
	protocolsChanged := !sameProtocols(m.protocols, req.Protocols)
	switch {
	case g.state == Stable && !protocolsChanged:
		wait, err := g.persistGroup()
		if err != nil {
			g.swapMember(&m, old)
			ch <- JoinResult{Err: kerr.CoordinatorNotAvailable, Generation: -1}
			return
		}
		wasLeader := g.leader == newID
		r := g.currentJoinResult(&m, wasLeader)
		// The leader gets the members to know the group but keeps the
		// assignment it has (KIP-814).
		r.SkipAssignment = wasLeader
		// If the record naming the new id never becomes durable, the
		// group goes back to the one in the log (revertClassic), whose
		// old id takes its place back, as Kafka reverts the replacement.
		r.Wait = wait
		ch <- r
	default:
		m.protocols = req.Protocols
		m.join = ch
		g.maybePrepareRebalanceOrCompleteJoin(now)
	}
}

// writeNewGroup appends the Empty GroupMetadataValue of a group the
// JoinGroup created, as Kafka commits a new group to its log with the
// join that creates it (newEmptyGroupMetadataRecord), so the group is
// still listed after a restart. If the append fails the group is
// forgotten and a member waiting in it told, as Kafka reverts its
// snapshot; an answer already given (MEMBER_ID_REQUIRED) stands. If it
// never becomes durable, revertClassic does the same.
func (g *classicGroup) writeNewGroup(now time.Time) {
	_, err := g.appendRecords([]Record{emptyGroupMetadataRecord(g.id, g.stateSince)})
	if err == nil {
		return
	}
	g.c.logger.Warn("writing a new group's metadata", "group", g.id, "err", err)
	for _, m := range g.allMembers() {
		m.respondJoin(JoinResult{Err: kerr.CoordinatorNotAvailable, Generation: -1})
	}
	g.transition(Dead, now)
	g.c.drop(g)
}

// swapMember puts to in from's place: its position, leadership, static
// id and pending SyncGroup.
func (g *classicGroup) swapMember(from, to *member) {
	delete(g.members, from.id)
	g.members[to.id] = to
	for i, id := range g.order {
		if id == from.id {
			g.order[i] = to.id
		}
	}
	if to.instanceID != nil {
		g.static[*to.instanceID] = to.id
	}
	if g.leader == from.id {
		g.leader = to.id
	}
	if g.pendingSync[from.id] {
		delete(g.pendingSync, from.id)
		g.pendingSync[to.id] = true
	}
}
