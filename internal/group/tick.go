package group

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Tick applies the passage of time to the groups whose timer is due
// (timers.go), and to no other: members whose session lapsed are
// removed, join phases past their deadline complete, and members that
// never sent SyncGroup are dropped; every
// offsets.retention.check.interval.ms, expired offsets are removed
// (expiry.go).
func (c *Coordinator) Tick() {
	now := c.clock.Now()
	for _, id := range c.timers.due(now) {
		if !c.fireShareTimer(id, now) {
			c.fireGroupTimer(id, now)
		}
	}
	c.maybeExpireOffsets(now)
}

// fireGroupTimer runs the group id's deadlines that are due, locking
// only that group, and sets its timer to its next deadline.
func (c *Coordinator) fireGroupTimer(id string, now time.Time) {
	c.mu.RLock()
	g := c.groups[id]
	var holder *classicGroup
	if cg := c.consumer.groups[id]; cg != nil {
		holder = cg.holder
	}
	c.mu.RUnlock()
	if g != nil {
		g.mu.Lock()
		g.tick(now)
		g.mu.Unlock()
	}
	if holder != nil {
		holder.mu.Lock()
		holder.catchUp()
		if cur := c.consumerGroupOf(holder, false); cur != nil {
			cur.tick(now, c.topics())
		}
		holder.mu.Unlock()
	}
	// The group may have been replaced (deleted and created again) while
	// unlocked: the timer follows whichever group holds the id now.
	c.mu.RLock()
	g = c.groups[id]
	c.mu.RUnlock()
	if g != nil {
		g.mu.Lock()
		g.arm(g.nextDeadline())
		g.mu.Unlock()
	}
}

// Run calls Tick when the earliest timer of a group or the next offset
// expiry check is due, until ctx ends. interval is how long it waits
// before trying again a deadline that Tick left due (a write that
// failed), as the scan it replaces retried every interval.
func (c *Coordinator) Run(ctx context.Context, interval time.Duration) {
	c.Tick() // schedules the first offset expiry check
	t := time.NewTimer(c.untilNextTimer(interval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.timers.wake:
			// A timer was set earlier than the one slept for: sleep again
			// until it, or run it now if it is due.
			t.Stop()
			if d := c.untilNext(); d > 0 {
				t.Reset(d)
				continue
			}
		}
		c.Tick()
		t.Reset(c.untilNextTimer(interval))
	}
}

// untilNext is how long until the earliest group timer or offset expiry
// check (an hour when neither is set).
func (c *Coordinator) untilNext() time.Duration {
	now := c.clock.Now()
	next, ok := c.timers.next()
	c.offsetState.mu.Lock()
	expiry := c.offsetState.nextExpiry
	c.offsetState.mu.Unlock()
	if !expiry.IsZero() && (!ok || expiry.Before(next)) {
		next, ok = expiry, true
	}
	if !ok {
		return time.Hour
	}
	return next.Sub(now)
}

// untilNextTimer is untilNext right after a Tick: a deadline still due
// is tried again after interval.
func (c *Coordinator) untilNextTimer(interval time.Duration) time.Duration {
	if d := c.untilNext(); d > 0 {
		return d
	}
	return interval
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
