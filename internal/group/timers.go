package group

import (
	"container/heap"
	"sync"
	"time"
)

// On __consumer_offsets the groups' deadlines are keyed timers of the
// coordinator runtime's shards (shard_timers.go). With any other Store
// (the unit tests' memory store), and for a deadline set while its
// partition is not served, they are this: keyed timers of the groups,
// as the timers of Kafka's coordinator runtime
// (CoordinatorTimer.schedule/cancel by key): each group has one timer,
// keyed by its id, set to the earliest of its deadlines (classic members'
// sessions, pending members' MEMBER_ID_REQUIRED joins, the join and sync
// phases, KIP-848 members' sessions and revocations). Tick runs only the
// groups whose timer is due, locking each of them and no other; a group
// whose timer fires runs its tick and sets its timer again to its next
// deadline (groupTimer). Code that sets a deadline arms the group's timer
// at it (arm), which only ever brings the timer forward: a deadline moved
// later (a heartbeat) leaves the timer where it was, and the timer
// finding nothing due when it fires sets itself to the real next deadline.
type timers struct {
	mu    sync.Mutex
	byKey map[string]*timerEntry
	queue timerQueue
	// wake hears when a timer is set earlier than every other, for Run
	// to sleep again until it.
	wake chan struct{}
}

type timerEntry struct {
	key   string
	at    time.Time
	index int
}

func newTimers() *timers {
	return &timers{byKey: map[string]*timerEntry{}, wake: make(chan struct{}, 1)}
}

// arm sets key's timer at at, unless it is set to fire no later already;
// a zero at does nothing.
func (t *timers) arm(key string, at time.Time) {
	if at.IsZero() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byKey[key]; e != nil {
		if !e.at.After(at) {
			return
		}
		e.at = at
		heap.Fix(&t.queue, e.index)
	} else {
		e = &timerEntry{key: key, at: at}
		t.byKey[key] = e
		heap.Push(&t.queue, e)
	}
	if t.queue[0].key == key {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
}

// set replaces key's timer by one at at; a zero at cancels it.
func (t *timers) set(key string, at time.Time) {
	t.cancel(key)
	t.arm(key, at)
}

// cancel stops key's timer, if any.
func (t *timers) cancel(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byKey[key]; e != nil {
		heap.Remove(&t.queue, e.index)
		delete(t.byKey, key)
	}
}

// due removes and returns the keys whose timer is at or before now, in
// deadline order.
func (t *timers) due(now time.Time) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var keys []string
	for len(t.queue) > 0 && !now.Before(t.queue[0].at) {
		e := heap.Pop(&t.queue).(*timerEntry)
		delete(t.byKey, e.key)
		keys = append(keys, e.key)
	}
	return keys
}

// next is the earliest timer's deadline; ok is false when none is set.
func (t *timers) next() (at time.Time, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) == 0 {
		return time.Time{}, false
	}
	return t.queue[0].at, true
}

// timerQueue is a min-heap of timers by deadline.
type timerQueue []*timerEntry

func (q timerQueue) Len() int           { return len(q) }
func (q timerQueue) Less(i, j int) bool { return q[i].at.Before(q[j].at) }
func (q timerQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *timerQueue) Push(x any) {
	e := x.(*timerEntry)
	e.index = len(*q)
	*q = append(*q, e)
}
func (q *timerQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

// arm brings the group's timer forward to at; the caller holds g.mu.
func (g *classicGroup) arm(at time.Time) { g.c.timers.arm(g.id, at) }

// nextDeadline is the earliest of the group's deadlines, classic and
// KIP-848 (zero: none); the caller holds g.mu.
func (g *classicGroup) nextDeadline() time.Time {
	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if g.state != Dead {
		for _, d := range g.pending {
			earliest(d)
		}
		for _, m := range g.members {
			earliest(m.deadline)
		}
		earliest(g.joinDeadline)
		earliest(g.syncDeadline)
	}
	if cg := g.c.consumerGroupOf(g, false); cg != nil {
		for _, m := range cg.members {
			earliest(m.sessionDeadline)
			if m.state == memberUnrevoked {
				earliest(m.revokeDeadline)
			}
		}
	}
	return next
}
