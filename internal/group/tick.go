package group

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Tick applies the passage of time to every group: members whose session
// lapsed are removed, join phases past their deadline complete, and
// members that never sent SyncGroup are dropped; every
// offsets.retention.check.interval.ms, expired offsets are removed
// (expiry.go).
func (c *Coordinator) Tick() {
	now := c.clock.Now()
	c.mu.RLock()
	groups := make([]*classicGroup, 0, len(c.groups))
	for _, g := range c.groups {
		groups = append(groups, g)
	}
	c.mu.RUnlock()
	for _, g := range groups {
		g.mu.Lock()
		g.tick(now)
		g.mu.Unlock()
	}
	c.tickConsumerGroups(now)
	c.maybeExpireOffsets(now)
}

// Run calls Tick every interval until ctx ends.
func (c *Coordinator) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Tick()
		}
	}
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
