package group

import (
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// On __consumer_offsets (an OffsetsTopic store), the session of each
// KIP-848 member is a keyed timer of its partition's shard in the
// coordinator runtime, one per member, as Kafka's
// groupSessionTimeoutKey: a heartbeat schedules it again (replacing it),
// the shard's unload drops it with the partition's other timers, and the
// load schedules it anew for every member it brings back. The other group
// deadlines (classic members, join and sync phases, revocations) are
// still the group's keyed timer (timers.go), as are the sessions with any
// other Store.
//
// A shard's timer runs under the shard's lock, which group code must not
// wait for while it holds a group's lock (the lock order is group, then
// shard), so the timer only defers the expiry out of the lock
// (expireConsumerSession). The expiry removes the member through the
// group's write, whose records go through the shard's writer and take
// effect as every write's.

// consumerSessionKey is a member's session timer key, Kafka's.
func consumerSessionKey(groupID, memberID string) string {
	return "session-timeout-" + groupID + "-" + memberID
}

// sessionRuntime is the store whose runtime keeps the KIP-848 sessions,
// nil when the group's own timer keeps them.
func (c *Coordinator) sessionRuntime() *OffsetsTopic {
	o, _ := c.store.(*OffsetsTopic)
	return o
}

// armSession sets the timer of m's session at m.sessionDeadline. The
// caller holds the holder's mu and no shard's lock; replay at load, which
// runs under the shard's lock, leaves sessions to the load's end
// (adoptLoadedConsumers).
func (g *consumerGroup) armSession(m *consumerMember) {
	if m.sessionDeadline.IsZero() || g.holder.resigned.Load() {
		// A resigned group's partition was unloaded: its load sets the
		// sessions of the members it brings back.
		return
	}
	c := g.holder.c
	if o := c.sessionRuntime(); o != nil {
		if o.scheduleSession(g.id, m.id, m.sessionDeadline) == nil {
			return
		}
		// The partition is not served (not loaded yet, or failed): the
		// group's own timer keeps the session rather than losing it.
	}
	g.arm(m.sessionDeadline)
}

// armSessionLocally arms the group's own timer at m's session, unless the
// runtime keeps the sessions: for a member a replay makes (which may run
// under a shard's lock; on the runtime, the load's end or the caller
// schedules the session once out of it) and a member whose deadline is
// copied from one whose timer is set.
func (g *consumerGroup) armSessionLocally(m *consumerMember) {
	if g.holder != nil && g.holder.c.sessionRuntime() == nil {
		g.arm(m.sessionDeadline)
	}
}

// scheduleSession sets the session timer of a member of groupID at at on
// its partition's shard.
func (o *OffsetsTopic) scheduleSession(groupID, memberID string, at time.Time) error {
	rt := o.runtime()
	n := o.logs.Partitions()
	if rt == nil || n == 0 {
		return coordinator.ErrNotCoordinator
	}
	c := o.c
	_, _, err := coordinator.Submit(rt, PartitionFor(groupID, n), func(s *offsetsShard) (coordinator.Result[struct{}], error) {
		ctx := s.ctx
		ctx.Schedule(consumerSessionKey(groupID, memberID), max(at.Sub(ctx.Now()), 0), func() ([]coordinator.Record, error) {
			ctx.Defer(func() { c.expireConsumerSession(groupID, memberID) })
			return nil, nil
		})
		return coordinator.Result[struct{}]{}, nil
	})
	return err
}

// expireConsumerSession runs when a member's session timer fires: if the
// member's session lapsed, the group's tick removes it (with every other
// member whose deadline passed); if a heartbeat moved it later without
// the timer following, the timer is set again at the session's end.
func (c *Coordinator) expireConsumerSession(groupID, memberID string) {
	holder := c.group(groupID, false)
	if holder == nil {
		return
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	holder.catchUp()
	g := c.consumerGroupOf(holder, false)
	if g == nil {
		return
	}
	m := g.members[memberID]
	if m == nil {
		return
	}
	if now := c.clock.Now(); !due(m.sessionDeadline, now) {
		g.armSession(m)
		return
	}
	g.tick(c.clock.Now(), c.topics())
}

// armLoadedSessions starts the session timer of every member of the
// holder's live consumer group; the caller holds holder.mu, out of any
// shard's lock.
func (c *Coordinator) armLoadedSessions(holder *classicGroup) {
	if c.sessionRuntime() == nil {
		return
	}
	if g := c.consumerGroupOf(holder, false); g != nil {
		for _, m := range g.members {
			g.armSession(m)
		}
	}
}
