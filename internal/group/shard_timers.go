package group

import (
	"log/slog"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// A group's deadlines are keyed timers of the coordinator runtime, with
// Kafka's keys: one per classic member's heartbeat (and per pending
// member id), one for the group's join phase and one for its sync phase,
// one per KIP-848 member's session and one per member's revocation. Each
// is set again (replaced) when its deadline moves. On __consumer_offsets
// (an OffsetsTopic store) they are timers of the group's partition's
// shard: its unload drops them with the partition, and its load sets them
// anew for the groups it brings back. With any other Store (the unit
// tests' memory store), and for a deadline set while its partition is not
// served, they are timers of the coordinator's one local shard, which has
// no log (localTimers).
//
// A shard's timer runs under the shard's lock, which group code must not
// wait for while it holds a group's lock (the lock order is group, then
// shard), so the timer only defers its work out of the lock
// (fireShardTimer). That work is the group's tick, which writes what it
// changes through the shard's writer, as every write.

// timerKind is what one of a group's deadlines is for.
type timerKind int8

const (
	heartbeatTimer timerKind = iota // a classic member's session, or a pending member id's
	joinTimer                       // the classic join phase
	syncTimer                       // the classic sync phase
	sessionTimer                    // a KIP-848 member's session
	revokeTimer                     // a KIP-848 member's revocation
	shareTimer                      // the earliest session of a share group's members
)

var timerKeyPrefix = [...]string{"heartbeat-", "join-", "sync-", "session-timeout-", "rebalance-timeout-", "share-session-timeout-"}

// groupTimer names one deadline of a group; member is empty for the
// group's own.
type groupTimer struct {
	kind   timerKind
	member string
}

// key is the timer's key in the shard, Kafka's.
func (t groupTimer) key(groupID string) string {
	k := timerKeyPrefix[t.kind] + groupID
	if t.member != "" {
		k += "-" + t.member
	}
	return k
}

// timerRuntime is the store whose runtime keeps the groups' timers, nil
// when the groups' own timer keeps them.
func (c *Coordinator) timerRuntime() *OffsetsTopic {
	o, _ := c.store.(*OffsetsTopic)
	return o
}

// armTimer sets the group's timer t at at. The caller holds g.mu and no
// shard's lock; replay at load, which runs under the shard's lock, uses
// armReplayed and leaves the shard's timers to the load's end
// (armLoaded).
func (g *classicGroup) armTimer(t groupTimer, at time.Time) {
	if at.IsZero() {
		return
	}
	if o := g.c.timerRuntime(); o != nil {
		if g.resigned.Load() {
			// The group's partition was unloaded: its load sets the timers
			// of the groups it brings back.
			return
		}
		if o.scheduleTimer(g.id, t, at) == nil {
			return
		}
		// The partition is not served (not loaded yet, or failed): the
		// local shard keeps the deadline rather than losing it.
	}
	if err := scheduleOn(g.c.local, 0, g.c, g.id, t, at); err != nil {
		g.c.logger.Error("setting a group timer", "group", g.id, "timer", t.key(g.id), "err", err)
	}
}

// cancelTimer stops the group's timer t, as Kafka cancels a removed
// member's heartbeat; the caller holds g.mu and no shard's lock.
func (g *classicGroup) cancelTimer(t groupTimer) {
	if o := g.c.timerRuntime(); o != nil && !g.resigned.Load() {
		if rt, n := o.runtime(), o.logs.Partitions(); rt != nil && n > 0 && cancelOn(rt, PartitionFor(g.id, n), g.id, t) == nil {
			return
		}
	}
	_ = cancelOn(g.c.local, 0, g.id, t)
}

// armReplayed sets the timer t at a deadline a replay set (which may run
// under a shard's lock) or copied from a member whose timer is set: on
// __consumer_offsets the load's end (armLoaded) or the copy's source set
// it; otherwise it is set now.
func (g *classicGroup) armReplayed(t groupTimer, at time.Time) {
	if g.c.timerRuntime() == nil {
		g.armTimer(t, at)
	}
}

func (g *classicGroup) armMember(m *member) {
	g.armTimer(groupTimer{heartbeatTimer, m.id}, m.deadline)
}

func (g *classicGroup) armPending(id string) {
	g.armTimer(groupTimer{heartbeatTimer, id}, g.pending[id])
}

func (g *classicGroup) armJoin() { g.armTimer(groupTimer{kind: joinTimer}, g.joinDeadline) }
func (g *classicGroup) armSync() { g.armTimer(groupTimer{kind: syncTimer}, g.syncDeadline) }

// armSession sets the timer of m's session; the caller holds the holder's
// mu.
func (g *consumerGroup) armSession(m *consumerMember) {
	if g.holder != nil {
		g.holder.armTimer(groupTimer{sessionTimer, m.id}, m.sessionDeadline)
	}
}

// armRevocation sets the timer of m's revocation.
func (g *consumerGroup) armRevocation(m *consumerMember) {
	if g.holder != nil && m.state == memberUnrevoked {
		g.holder.armTimer(groupTimer{revokeTimer, m.id}, m.revokeDeadline)
	}
}

// cancelTimers stops the timers of a removed member, as Kafka cancels
// them.
func (g *consumerGroup) cancelTimers(memberID string) {
	if g.holder != nil {
		g.holder.cancelTimer(groupTimer{sessionTimer, memberID})
		g.holder.cancelTimer(groupTimer{revokeTimer, memberID})
	}
}

// armReplayedTimer is classicGroup.armReplayed for the holder.
func (g *consumerGroup) armReplayedTimer(t groupTimer, at time.Time) {
	if g.holder != nil {
		g.holder.armReplayed(t, at)
	}
}

// armReplayed is armReplayedTimer for the member's session and
// revocation.
func (g *consumerGroup) armReplayed(m *consumerMember) {
	g.armReplayedTimer(groupTimer{sessionTimer, m.id}, m.sessionDeadline)
	if m.state == memberUnrevoked {
		g.armReplayedTimer(groupTimer{revokeTimer, m.id}, m.revokeDeadline)
	}
}

// deadline is where the group's timer t is due now (zero: nowhere, the
// member or the phase is gone); the caller holds g.mu.
func (g *classicGroup) deadline(t groupTimer) time.Time {
	switch t.kind {
	case heartbeatTimer:
		if m := g.members[t.member]; m != nil {
			return m.deadline
		}
		return g.pending[t.member]
	case joinTimer:
		return g.joinDeadline
	case syncTimer:
		return g.syncDeadline
	}
	cg := g.c.consumerGroupOf(g, false)
	if cg == nil || cg.members[t.member] == nil {
		return time.Time{}
	}
	m := cg.members[t.member]
	if t.kind == sessionTimer {
		return m.sessionDeadline
	}
	if m.state == memberUnrevoked {
		return m.revokeDeadline
	}
	return time.Time{}
}

// scheduleTimer sets the group's timer t at at on its partition's shard.
func (o *OffsetsTopic) scheduleTimer(groupID string, t groupTimer, at time.Time) error {
	rt := o.runtime()
	n := o.logs.Partitions()
	if rt == nil || n == 0 {
		return coordinator.ErrNotCoordinator
	}
	return scheduleOn(rt, PartitionFor(groupID, n), o.c, groupID, t, at)
}

// timerShard is a shard whose Context sets timers.
type timerShard interface {
	coordinator.Shard
	timerContext() *coordinator.Context
}

func (s *offsetsShard) timerContext() *coordinator.Context { return s.ctx }

// scheduleOn sets the group's timer t at at on partition's shard of rt.
func scheduleOn[S timerShard](rt *coordinator.Runtime[S], partition int32, c *Coordinator, groupID string, t groupTimer, at time.Time) error {
	_, _, err := coordinator.Submit(rt, partition, func(s S) (coordinator.Result[struct{}], error) {
		ctx := s.timerContext()
		ctx.Schedule(t.key(groupID), max(at.Sub(ctx.Now()), 0), func() ([]coordinator.Record, error) {
			ctx.Defer(func() { c.fireShardTimer(groupID, t) })
			return nil, nil
		})
		return coordinator.Result[struct{}]{}, nil
	})
	return err
}

// cancelOn stops the group's timer t on partition's shard of rt.
func cancelOn[S timerShard](rt *coordinator.Runtime[S], partition int32, groupID string, t groupTimer) error {
	_, _, err := coordinator.Submit(rt, partition, func(s S) (coordinator.Result[struct{}], error) {
		s.timerContext().Cancel(t.key(groupID))
		return coordinator.Result[struct{}]{}, nil
	})
	return err
}

// localShard is the one shard of a coordinator's local timers: no log,
// no state, only the timers of groups no partition's shard keeps.
type localShard struct{ ctx *coordinator.Context }

func (*localShard) Replay(coordinator.Entry) error       { return nil }
func (*localShard) OnLoaded()                            {}
func (*localShard) OnUnloaded()                          {}
func (s *localShard) timerContext() *coordinator.Context { return s.ctx }

// localTimers is the runtime of the local shard, loaded.
func localTimers(clock Clock, logger *slog.Logger) *coordinator.Runtime[*localShard] {
	rt := coordinator.New(coordinator.Options[*localShard]{Logs: coordinator.NewMemoryLogs(), Clock: runtimeClock(clock), Logger: logger,
		NewShard: func(ctx *coordinator.Context) *localShard { return &localShard{ctx: ctx} }})
	if err := rt.Load(0); err != nil {
		panic("group: loading the local timers' shard: " + err.Error()) // an empty log in memory
	}
	return rt
}

// runtimeClock is clock, for the runtime's timers, which read the time
// the groups' deadlines are set in.
func runtimeClock(clock Clock) coordinator.Clock {
	if rc, ok := clock.(coordinator.Clock); ok {
		return rc
	}
	return readingClock{clock}
}

// readingClock sets wall-clock timers and reads the time from a Clock
// that cannot set them.
type readingClock struct{ Clock }

func (r readingClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// fireShardTimer runs when the group's timer t fires: a classic timer
// applies its own deadline; a KIP-848 one, the consumer group's tick,
// removes every member whose session or revocation lapsed, in one write.
// A deadline of t moved later without its timer following (a member kept
// alive by waiting in a rebalance) is timed again.
func (c *Coordinator) fireShardTimer(groupID string, t groupTimer) {
	if t.kind == shareTimer {
		c.fireShareTimer(groupID) // it releases the fenced members' records out of the group's lock
		return
	}
	g := c.group(groupID, false)
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := c.clock.Now()
	switch t.kind {
	case heartbeatTimer, joinTimer, syncTimer:
		g.fire(t, now)
	default:
		g.catchUp()
		if cg := c.consumerGroupOf(g, false); cg != nil {
			cg.tick(now, c.topics())
		}
	}
	if at := g.deadline(t); !at.IsZero() {
		if !at.After(now) {
			// Still due: what it does failed (a write refused); it is
			// tried again shortly rather than at once.
			at = now.Add(retryDue)
		}
		g.armTimer(t, at)
	}
}

// retryDue is how long a timer whose deadline its work left due waits
// before it tries again.
const retryDue = 50 * time.Millisecond

// armLoaded sets the timers of a group a load brought back, once out of
// the shard's lock; the caller holds g.mu.
func (g *classicGroup) armLoaded() {
	for id := range g.pending {
		g.armPending(id)
	}
	for _, m := range g.members {
		g.armMember(m)
	}
	g.armJoin()
	g.armSync()
	if cg := g.c.consumerGroupOf(g, false); cg != nil {
		for _, m := range cg.members {
			cg.armSession(m)
			cg.armRevocation(m)
		}
	}
	if sg := g.c.shareGroupOf(g, false); sg != nil {
		sg.arm(g.c.clock.Now())
	}
}
