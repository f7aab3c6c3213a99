package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Tick applies the passage of time that no timer covers: with a Store
// other than __consumer_offsets (the unit tests' memory store), every
// offsets.retention.check.interval.ms, expired offsets are removed
// (expiry.go). The groups' deadlines are keyed timers of the coordinator
// runtime (shard_timers.go), which fire on their own, as does each
// __consumer_offsets shard's offset expiry, so the broker never calls it.
func (c *Coordinator) Tick() {
	c.maybeExpireOffsets(c.clock.Now())
}

func due(deadline, now time.Time) bool { return !deadline.IsZero() && !now.Before(deadline) }

// fire applies the deadline of the group's classic timer t, if it
// passed, as Kafka's expireClassicGroupMemberHeartbeat,
// completeClassicGroupJoin and expirePendingSync do; the caller holds
// g.mu.
func (g *classicGroup) fire(t groupTimer, now time.Time) {
	g.catchUp()
	if g.state == Dead {
		return
	}
	switch t.kind {
	case heartbeatTimer:
		if deadline, pending := g.pending[t.member]; pending {
			// A member id handed out with MEMBER_ID_REQUIRED that never
			// joined.
			if due(deadline, now) {
				delete(g.pending, t.member)
				if g.state == PreparingRebalance {
					g.maybeCompleteJoin(now)
				}
			}
			return
		}
		m := g.members[t.member]
		if m == nil || !due(m.deadline, now) {
			return
		}
		if !m.isNew && (m.awaitingJoin() || m.awaitingSync()) {
			// Waiting in a rebalance counts as alive; the rebalance's own
			// timeouts deal with members that stop answering.
			m.deadline = now.Add(m.sessionTimeout)
			return
		}
		g.removeMember(m, now)
	case joinTimer:
		if due(g.joinDeadline, now) {
			g.joinTimerFired(now)
		}
	case syncTimer:
		if !due(g.syncDeadline, now) {
			return
		}
		g.syncDeadline = time.Time{}
		if (g.state == CompletingRebalance || g.state == Stable) && len(g.pendingSync) > 0 {
			for _, m := range g.allMembers() {
				if g.pendingSync[m.id] {
					m.respondSync(SyncResult{Err: kerr.UnknownMemberID})
					g.remove(m.id)
				}
			}
			g.prepareRebalance(now)
		}
	}
}
