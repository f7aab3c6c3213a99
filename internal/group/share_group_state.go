package group

import (
	"context"
	"maps"
	"slices"
	"time"
)

// The share state of a share group's partitions, as Kafka 4.4 keeps it
// (ShareGroupStatePartitionMetadata). A heartbeat that finds subscribed
// partitions whose state is neither initialized nor being initialized
// records them as initializing and, once that record is durable, asks the
// share coordinator to initialize their state (InitializeShareGroupState,
// state epoch the group epoch, start offset -1). The answer moves them to
// initialized (or, on an error, out of initializing), and only
// initialized partitions are assignable: the next heartbeat bumps the
// group epoch and assigns them. Partitions initializing for longer than
// group.share.initialize.retry.interval.ms are asked for again.

// shareInitializeRetry is Kafka's
// group.share.initialize.retry.interval.ms (an internal setting).
const shareInitializeRetry = 30 * time.Second

// shareInitTimeout bounds one initialization: the heartbeat's records
// becoming durable and the share coordinator's answer, which at the
// first share heartbeat includes creating __share_group_state.
const shareInitTimeout = 30 * time.Second

// SharePartitionInit is one share-partition whose state the group
// coordinator asks the share coordinator to initialize.
type SharePartitionInit struct {
	TopicID   [16]byte
	Topic     string
	Partition int32
}

// ShareInitializer initializes the share state of a group's partitions
// with stateEpoch and start offset -1 (the persister's initializeState);
// an error for any partition fails them all, as in Kafka.
type ShareInitializer func(ctx context.Context, group string, stateEpoch int32, parts []SharePartitionInit) error

// shareInit is the InitializeShareGroupState a heartbeat calls for.
type shareInit struct {
	group string
	epoch int32
	parts []SharePartitionInit
	// view is the heartbeat's topics, whose ids the outcome is recorded
	// with when the coordinator has no view of its own.
	view TopicView
}

// SetShareInitializer sets where the share state of newly subscribed
// partitions is initialized; call it before serving. Without one, the
// partitions stay initializing and are never assigned.
func (c *Coordinator) SetShareInitializer(init ShareInitializer) {
	c.mu.Lock()
	c.share.initialize = init
	c.mu.Unlock()
}

// subscribedTopics is every member's subscribed topics.
func (g *shareGroup) subscribedTopics() []string {
	var ts []string
	for _, m := range g.members {
		ts = append(ts, m.topics...)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// initializedAssignmentPending reports whether initialized partitions of
// subscribed topics are not what the target assigns (Kafka's
// initializedAssignmentPending): a new epoch assigns them.
func (g *shareGroup) initializedAssignmentPending() bool {
	if len(g.members) == 0 || len(g.initialized) == 0 {
		return false
	}
	assigned := MemberAssignment{}
	for _, a := range g.target {
		for _, tp := range partitionsOf(a) {
			addPartition(assigned, tp)
		}
	}
	for _, t := range g.subscribedTopics() {
		ps := g.initialized[t]
		if len(ps) == 0 {
			continue
		}
		if !slices.Equal(sortedPartitions(ps), sortedPartitions(assigned[t])) {
			return true
		}
	}
	return false
}

func sortedPartitions(ps []int32) []int32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	return slices.Compact(out)
}

// markInitializing adds to initializing the subscribed partitions whose
// state is neither initialized nor initializing since less than retry
// (Kafka's subscribedTopicsChangeMap), and returns them.
func (g *shareGroup) markInitializing(view TopicView, ids TopicIDs, now time.Time, retry time.Duration) []SharePartitionInit {
	if view == nil || ids == nil {
		return nil
	}
	var out []SharePartitionInit
	for _, t := range g.subscribedTopics() {
		n := view.Partitions(t)
		id, ok := ids.TopicID(t)
		if n <= 0 || !ok {
			continue
		}
		have := map[int32]bool{}
		for _, p := range g.initialized[t] {
			have[p] = true
		}
		if at, ok := g.initializingAt[t]; ok && now.Sub(at) < retry {
			for _, p := range g.initializing[t] {
				have[p] = true
			}
		}
		if len(have) >= int(n) {
			continue
		}
		for p := range n {
			if have[p] {
				continue
			}
			out = append(out, SharePartitionInit{TopicID: id, Topic: t, Partition: p})
			if !slices.Contains(g.initializing[t], p) {
				g.initializing[t] = append(g.initializing[t], p)
			}
		}
		g.initializingAt[t] = now
		g.stateChanged = true
		g.deleting = slices.DeleteFunc(g.deleting, func(d shareStateTopic) bool { return d.TopicID == id })
	}
	return out
}

// stateValue is the group's ShareGroupStatePartitionMetadataValue.
func (g *shareGroup) stateValue(ids TopicIDs) []byte {
	v := &shareStateValue{Initializing: stateTopics(g.initializing, ids), Initialized: stateTopics(g.initialized, ids),
		Deleting: slices.Clone(g.deleting)}
	if v.Deleting == nil {
		v.Deleting = []shareStateTopic{}
	}
	return v.encode()
}

func stateTopics(a MemberAssignment, ids TopicIDs) []shareStateTopic {
	out := []shareStateTopic{}
	for _, name := range slices.Sorted(maps.Keys(a)) {
		id, ok := ids.TopicID(name)
		if !ok || len(a[name]) == 0 {
			continue
		}
		out = append(out, shareStateTopic{TopicID: id, TopicName: name, Partitions: sortedPartitions(a[name])})
	}
	return out
}

// replayState applies a ShareGroupStatePartitionMetadata record; its
// initializing topics count from now, as Kafka's replay stamps them.
func (g *shareGroup) replayState(rec shareRecord, ids TopicIDs, now time.Time) {
	g.initialized, g.initializing, g.initializingAt, g.deleting = MemberAssignment{}, MemberAssignment{}, map[string]time.Time{}, nil
	if rec.Tombstone {
		return
	}
	g.initialized = shareStatePartitions(rec.State.Initialized, ids)
	g.initializing = shareStatePartitions(rec.State.Initializing, ids)
	for t := range g.initializing {
		g.initializingAt[t] = now
	}
	g.deleting = slices.Clone(rec.State.Deleting)
}

// runShareInit asks the share coordinator to initialize what a heartbeat
// marked initializing, once the heartbeat's records are durable, and
// records the outcome; it runs on its own, as Kafka's timer task does.
func (c *Coordinator) runShareInit(init ShareInitializer, req shareInit, wait Durable) {
	ctx, cancel := context.WithTimeout(context.Background(), shareInitTimeout)
	defer cancel()
	if wait != nil {
		if err := wait(ctx); err != nil {
			c.logger.Warn("share group records not durable; share state not initialized", "group", req.group, "err", err)
			c.finishShareInit(req, false)
			return
		}
	}
	err := init(ctx, req.group, req.epoch, req.parts)
	if err != nil {
		c.logger.Warn("initializing share group state", "group", req.group, "err", err)
	}
	c.finishShareInit(req, err == nil)
}

// finishShareInit moves the partitions of req from initializing to
// initialized (ok) or out of initializing (Kafka's initializeShareGroupState
// and uninitializeShareGroupState).
func (c *Coordinator) finishShareInit(req shareInit, ok bool) {
	holder := c.group(req.group, false)
	if holder == nil {
		return
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	holder.catchUp()
	live := c.shareGroupOf(holder, false)
	if live == nil {
		return
	}
	next := live.clone()
	next.stateChanged = true
	for _, p := range req.parts {
		tp := TopicPartition{p.Topic, p.Partition}
		if ok {
			addPartition(next.initialized, tp)
		}
		if ps := slices.DeleteFunc(slices.Clone(next.initializing[p.Topic]), func(x int32) bool { return x == p.Partition }); len(ps) > 0 {
			next.initializing[p.Topic] = ps
		} else {
			delete(next.initializing, p.Topic)
			delete(next.initializingAt, p.Topic)
		}
	}
	var view TopicView = req.view
	if t := c.topics(); t != nil {
		view = t
	}
	if _, err := live.write(next, view); err != nil {
		c.logger.Warn("writing share group state metadata", "group", req.group, "err", err)
	}
}
