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

func (g *classicGroup) tick(now time.Time) {
	g.catchUp()
	if g.state == Dead {
		return
	}
	for id, deadline := range g.pending {
		if due(deadline, now) {
			delete(g.pending, id)
			if g.state == PreparingRebalance {
				g.maybeCompleteJoin(now)
			}
		}
	}
	anyDue := false
	for _, m := range g.members {
		anyDue = anyDue || due(m.deadline, now)
	}
	for _, m := range g.allMembers() {
		if !anyDue {
			break
		}
		if _, still := g.members[m.id]; !still || !due(m.deadline, now) {
			continue
		}
		if !m.isNew && (m.awaitingJoin() || m.awaitingSync()) {
			// Waiting in a rebalance counts as alive; the rebalance's own
			// timeouts deal with members that stop answering.
			m.deadline = now.Add(m.sessionTimeout)
			continue
		}
		g.removeMember(m, now)
	}
	if due(g.joinDeadline, now) {
		g.joinTimerFired(now)
	}
	if due(g.syncDeadline, now) {
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
