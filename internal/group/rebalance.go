package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func (g *classicGroup) canRebalance() bool {
	return g.state == Stable || g.state == CompletingRebalance || g.state == Empty
}

func (g *classicGroup) maybePrepareRebalanceOrCompleteJoin(now time.Time) {
	if g.canRebalance() {
		g.prepareRebalance(now)
		return
	}
	g.maybeCompleteJoin(now)
}

// prepareRebalance starts a join phase: members awaiting an assignment
// are told REBALANCE_IN_PROGRESS and must join again.
func (g *classicGroup) prepareRebalance(now time.Time) {
	if g.state == CompletingRebalance {
		for _, m := range g.members {
			m.assignment = nil
			g.propagateSync(m, SyncResult{Err: kerr.RebalanceInProgress}, now)
		}
	}
	g.pendingSync = map[string]bool{}
	g.syncDeadline = time.Time{}
	g.c.logger.Info("preparing to rebalance group", "group", g.id, "state", g.state.String(),
		"generation", g.generation, "members", len(g.members))
	initial := g.state == Empty
	g.transition(PreparingRebalance, now)
	g.initialJoin = initial
	if initial {
		g.initialDelay = g.c.cfg.InitialRebalanceDelay
		g.initialLeft = max(g.rebalanceTimeout()-g.initialDelay, 0)
		g.newMemberAdded = false
		g.joinDeadline = now.Add(g.initialDelay)
		g.armJoin()
		return
	}
	if g.hasAllMembersJoined() {
		g.completeJoin(now)
		return
	}
	g.joinDeadline = now.Add(g.rebalanceTimeout())
	g.armJoin()
}

// maybeCompleteJoin ends the join phase early once every member has
// joined again, except in an initial join, which always waits its delay.
func (g *classicGroup) maybeCompleteJoin(now time.Time) {
	if g.state != PreparingRebalance || g.initialJoin || !g.hasAllMembersJoined() {
		return
	}
	g.completeJoin(now)
}

// joinTimerFired runs when joinDeadline passes.
func (g *classicGroup) joinTimerFired(now time.Time) {
	g.joinDeadline = time.Time{}
	if g.state != PreparingRebalance {
		return
	}
	if g.initialJoin && g.newMemberAdded && g.initialLeft > 0 {
		g.newMemberAdded = false
		delay := min(g.c.cfg.InitialRebalanceDelay, g.initialLeft)
		g.initialLeft = max(g.initialLeft-g.initialDelay, 0)
		g.initialDelay = delay
		g.joinDeadline = now.Add(delay)
		g.armJoin()
		return
	}
	g.completeJoin(now)
}

// completeJoin drops dynamic members that did not join again, starts the
// next generation and answers every waiting JoinGroup; the leader gets
// the members, to compute the assignment it sends in SyncGroup.
func (g *classicGroup) completeJoin(now time.Time) {
	g.joinDeadline = time.Time{}
	g.initialJoin = false
	for _, m := range g.allMembers() {
		if !m.awaitingJoin() && m.instanceID == nil {
			g.remove(m.id)
		}
	}
	if g.state == Dead {
		return
	}
	if len(g.members) > 0 && !g.electJoinedLeader() {
		// Nobody joined (only static members that did not come back):
		// wait another rebalance timeout for session timeouts to act.
		g.joinDeadline = now.Add(g.rebalanceTimeout())
		g.armJoin()
		return
	}
	g.generation++
	if len(g.members) == 0 {
		g.protocol, g.leader = "", ""
		g.transition(Empty, now)
		g.persistGroup()
		return
	}
	g.protocol = g.selectProtocol()
	g.transition(CompletingRebalance, now)
	g.c.logger.Info("stabilized group", "group", g.id, "generation", g.generation, "protocol", g.protocol,
		"leader", g.leader, "members", len(g.members))
	for _, m := range g.allMembers() {
		m.respondJoin(g.currentJoinResult(m, m.id == g.leader))
		m.isNew = false
		m.deadline = now.Add(m.sessionTimeout)
		g.armMember(m)
		g.pendingSync[m.id] = true
	}
	g.syncDeadline = now.Add(g.rebalanceTimeout())
	g.armSync()
}

// electJoinedLeader keeps the leader if it joined again, else picks a
// member that did; false when no member joined.
func (g *classicGroup) electJoinedLeader() bool {
	if l, ok := g.members[g.leader]; ok && l.awaitingJoin() {
		return true
	}
	for _, m := range g.allMembers() {
		if m.awaitingJoin() {
			g.leader = m.id
			return true
		}
	}
	return false
}

// removeMember takes a member out (left, expired or fenced) and moves the
// group on: a rebalance, or the end of the join phase.
func (g *classicGroup) removeMember(m *member, now time.Time) {
	m.respondJoin(JoinResult{Err: kerr.UnknownMemberID, MemberID: "", Generation: -1})
	m.respondSync(SyncResult{Err: kerr.UnknownMemberID})
	g.remove(m.id)
	g.c.logger.Info("removed member from group", "group", g.id, "member", m.id, "client_id", m.clientID, "state", g.state.String())
	switch g.state {
	case Stable, CompletingRebalance:
		g.maybePrepareRebalanceOrCompleteJoin(now)
	case PreparingRebalance:
		g.maybeCompleteJoin(now)
	}
}
