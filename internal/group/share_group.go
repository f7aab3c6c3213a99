package group

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/config"
)

// Share groups (KIP-932), the third group type beside classic and
// consumer groups. Members heartbeat (ShareGroupHeartbeat) with member
// epochs as in a consumer group, and the coordinator assigns them
// partitions with the simple assignor (share_group_assignor.go); a
// partition may go to several members, who take its records one by one
// from the share-partition (package share), so there is nothing to
// revoke: a member moves to the target assignment at its next heartbeat.
//
// A share group lives beside the classicGroup of its id (its holder),
// whose lock guards it and whose __consumer_offsets partition holds its
// records, so an id is one group of one type: a share group id answers
// consumer and classic requests as Kafka does, and the reverse. As for
// consumer groups, an operation works on a copy (next), and the live
// group changes only by replaying the records that carry the difference,
// once appended; Load replays the same records (share_group_records.go).
// A member fenced or leaving gives back the records it holds in the
// group's share-partitions (ShareConfig.Release).

// ShareConfig is the share groups' group.share.* settings.
type ShareConfig struct {
	SessionTimeout    time.Duration // group.share.session.timeout.ms
	HeartbeatInterval time.Duration // group.share.heartbeat.interval.ms
	MaxSize           int           // group.share.max.size
	// Assignor is the name of the server-side assignor
	// (group.share.assignors), as ShareGroupDescribe reports it.
	Assignor string
}

// DefaultShareConfig is Kafka's defaults.
func DefaultShareConfig() ShareConfig {
	return ShareConfig{SessionTimeout: 45 * time.Second, HeartbeatInterval: 5 * time.Second, MaxSize: 200,
		Assignor: config.ShareAssignorSimple}
}

// ShareConfigFrom reads the group.share.* settings; nil gives Kafka's
// defaults.
func ShareConfigFrom(b *config.Broker) ShareConfig {
	cfg := DefaultShareConfig()
	if b == nil {
		return cfg
	}
	cfg.SessionTimeout = time.Duration(b.Int("group.share.session.timeout.ms")) * time.Millisecond
	cfg.HeartbeatInterval = time.Duration(b.Int("group.share.heartbeat.interval.ms")) * time.Millisecond
	cfg.MaxSize = int(b.Int("group.share.max.size"))
	cfg.Assignor = b.ShareAssignor()
	return cfg
}

// ShareHeartbeat is a ShareGroupHeartbeat, nil fields meaning "unchanged
// since the last heartbeat" as on the wire.
type ShareHeartbeat struct {
	GroupID          string
	MemberID         string
	MemberEpoch      int32 // 0 joins, -1 leaves
	RackID           *string
	SubscribedTopics []string
	ClientID         string
	ClientHost       string
	// Topics is the cluster's topics as the request found them.
	Topics TopicView
}

// ShareHeartbeatResult is the answer to a ShareHeartbeat.
type ShareHeartbeatResult struct {
	Err               *kerr.Error
	ErrMessage        string
	MemberID          string
	MemberEpoch       int32
	HeartbeatInterval time.Duration
	// Assignment is the member's whole assignment when the answer carries
	// one (a join, or a change), nil otherwise.
	Assignment MemberAssignment
	// Wait is the durability of the heartbeat's records; nil when none.
	Wait Durable
	// init is the share state initialization the heartbeat calls for.
	init *shareInit
}

// shareGroups is the coordinator's share groups; the map is guarded by
// Coordinator.mu, each group by its holder's lock.
type shareGroups struct {
	cfg    ShareConfig
	cfgSet bool
	// release gives back what a member holds in the group's
	// share-partitions (share.Manager.ReleaseMember); nil: nothing to do.
	release func(group, member string) error
	// perGroup, if set, applies a group's own configs
	// (share.session.timeout.ms, share.heartbeat.interval.ms).
	perGroup func(groupID string, broker ShareConfig) ShareConfig
	// initialize initializes share state (share_group_state.go); nil:
	// partitions stay initializing.
	initialize ShareInitializer
}

type shareGroup struct {
	holder *classicGroup
	id     string

	epoch           int32
	assignmentEpoch int32
	members         map[string]*shareMember
	target          map[string]MemberAssignment
	// partitionCounts is the subscribed topics' partition counts the
	// target was computed from; countsPending and loadedHash as in
	// consumerGroup.
	partitionCounts map[string]int32
	countsPending   bool
	loadedHash      int64
	// initialized, initializing and deleting are the topic-partitions of
	// ShareGroupStatePartitionMetadata (share_group_state.go); only
	// initialized ones are assigned. initializingAt is when a topic was
	// last asked to be initialized.
	initialized    MemberAssignment
	initializing   MemberAssignment
	initializingAt map[string]time.Time
	deleting       []shareStateTopic
	// stateChanged: the state record is to be written even if unchanged
	// (an initialization asked for again).
	stateChanged bool
	// epochWritten: a ShareGroupMetadata record was replayed.
	epochWritten bool
}

type shareMember struct {
	id              string
	rackID          *string
	clientID        string
	clientHost      string
	topics          []string
	epoch           int32
	prevEpoch       int32
	assigned        MemberAssignment
	sessionDeadline time.Time
}

func newShareGroup(holder *classicGroup) *shareGroup {
	// Epoch 1 before the first member, as Kafka's ModernGroup starts.
	return &shareGroup{holder: holder, id: holder.id, epoch: 1, members: map[string]*shareMember{},
		target: map[string]MemberAssignment{}, partitionCounts: map[string]int32{}, initialized: MemberAssignment{},
		initializing: MemberAssignment{}, initializingAt: map[string]time.Time{}}
}

// SetShareConfig sets the group.share.* settings; call it before
// loading.
func (c *Coordinator) SetShareConfig(cfg ShareConfig) {
	c.mu.Lock()
	c.share.cfg, c.share.cfgSet = cfg, true
	c.mu.Unlock()
}

// SetShareRelease sets where a fenced or leaving member's records are
// released (share.Manager.ReleaseMember); call it before serving.
func (c *Coordinator) SetShareRelease(release func(group, member string) error) {
	c.mu.Lock()
	c.share.release = release
	c.mu.Unlock()
}

// SetShareGroupConfigs sets where a group's own configs come from (GROUP
// resources): perGroup returns the settings for one group given the
// broker-wide ones.
func (c *Coordinator) SetShareGroupConfigs(perGroup func(groupID string, broker ShareConfig) ShareConfig) {
	c.mu.Lock()
	c.share.perGroup = perGroup
	c.mu.Unlock()
}

// shareConfig is the settings of one group, the broker's with the
// group's own over them, and the release of a member's records.
func (c *Coordinator) shareConfig(groupID string) (ShareConfig, func(group, member string) error) {
	c.mu.RLock()
	cfg, release, perGroup := c.share.cfg, c.share.release, c.share.perGroup
	if !c.share.cfgSet {
		cfg = DefaultShareConfig()
	}
	c.mu.RUnlock()
	if perGroup != nil {
		cfg = perGroup(groupID, cfg)
	}
	return cfg, release
}

// shareGroupOf returns the share group of holder's id, creating it when
// create is set; the caller holds holder.mu.
func (c *Coordinator) shareGroupOf(holder *classicGroup, create bool) *shareGroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := holder.shard
	if s == nil {
		return nil
	}
	g := s.share[holder.id]
	if g != nil && g.holder != holder {
		g = nil
		delete(s.share, holder.id)
	}
	if g == nil && create {
		g = newShareGroup(holder)
		s.share[holder.id] = g
	}
	return g
}

// isShareGroup reports whether holder's id is a share group; the caller
// holds holder.mu.
func (c *Coordinator) isShareGroup(holder *classicGroup) bool {
	return c.shareGroupOf(holder, false) != nil
}

func (c *Coordinator) dropShareGroup(holder *classicGroup) {
	c.mu.Lock()
	if s := holder.shard; s != nil && s.share[holder.id] != nil && s.share[holder.id].holder == holder {
		delete(s.share, holder.id)
	}
	c.mu.Unlock()
}

// ShareHeartbeat handles a ShareGroupHeartbeat: joins, leaves,
// subscription changes and the member's move to its target assignment.
func (c *Coordinator) ShareHeartbeat(req ShareHeartbeat) ShareHeartbeatResult {
	cfg, release := c.shareConfig(req.GroupID)
	fail := func(err *kerr.Error, msg string) ShareHeartbeatResult {
		return ShareHeartbeatResult{Err: err, ErrMessage: msg, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}
	}
	// Kafka's throwIfShareGroupHeartbeatRequestIsInvalid, in its order.
	switch {
	case req.MemberID == "":
		return fail(kerr.InvalidRequest, "MemberId can't be empty.")
	case req.GroupID == "":
		return fail(kerr.InvalidRequest, "GroupId can't be empty.")
	case req.RackID != nil && *req.RackID == "":
		return fail(kerr.InvalidRequest, "RackId can't be empty.")
	case req.MemberEpoch == 0 && len(req.SubscribedTopics) == 0:
		return fail(kerr.InvalidRequest, "SubscribedTopicNames must be set in first request.")
	case req.MemberEpoch < -1:
		return fail(kerr.InvalidRequest, "MemberEpoch is invalid.")
	}
	if err := c.unavailable(req.GroupID); err != nil {
		return fail(err, "")
	}
	holder, created := c.groupCreated(req.GroupID, req.MemberEpoch == 0)
	if holder == nil {
		return fail(kerr.GroupIDNotFound, fmt.Sprintf("Share group %s not found.", req.GroupID))
	}
	holder.mu.Lock()
	holder.catchUp()
	res, released := c.shareHeartbeat(holder, req, cfg)
	if cur := c.shareGroupOf(holder, false); cur != nil && !cur.epochWritten {
		// A group none of whose records were written does not exist, nor
		// does the id this heartbeat created for it.
		c.dropShareGroup(holder)
		if created {
			holder.transition(Dead, c.clock.Now())
			c.drop(holder)
		}
	}
	holder.mu.Unlock()
	c.releaseShareMembers(release, req.GroupID, released)
	if res.init != nil {
		c.mu.RLock()
		init := c.share.initialize
		c.mu.RUnlock()
		if init != nil {
			go c.runShareInit(init, *res.init, res.Wait)
		}
	}
	return res
}

// shareHeartbeat runs a heartbeat with holder.mu held; released are the
// members whose records go back to the share-partitions.
func (c *Coordinator) shareHeartbeat(holder *classicGroup, req ShareHeartbeat, cfg ShareConfig) (ShareHeartbeatResult, []string) {
	fail := func(err *kerr.Error, msg string) (ShareHeartbeatResult, []string) {
		return ShareHeartbeatResult{Err: err, ErrMessage: msg, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}, nil
	}
	notShare := func() (ShareHeartbeatResult, []string) {
		return fail(kerr.GroupIDNotFound, fmt.Sprintf("Group %s is not a share group.", req.GroupID))
	}
	if holder.state == Dead {
		return fail(kerr.CoordinatorNotAvailable, "")
	}
	live := c.shareGroupOf(holder, false)
	if live == nil {
		// Any group of another type holds the id, an empty classic group
		// with committed offsets included, as Kafka's groups map does.
		if c.consumerGroupOf(holder, false) != nil || len(holder.members) > 0 || holder.protocolType != "" ||
			holder.generation > 0 || len(holder.offsets) > 0 || len(holder.txn.pending) > 0 {
			return notShare()
		}
		if req.MemberEpoch != 0 {
			return fail(kerr.GroupIDNotFound, fmt.Sprintf("Share group %s not found.", req.GroupID))
		}
		live = c.shareGroupOf(holder, true)
	}
	g := live.clone()
	now := c.clock.Now()
	m := g.members[req.MemberID]
	if req.MemberEpoch == -1 {
		if m == nil {
			return fail(kerr.UnknownMemberID, fmt.Sprintf("Member %s is not a member of group %s.", req.MemberID, req.GroupID))
		}
		c.logger.Info("member leaving share group", "group", req.GroupID, "member", req.MemberID)
		g.removeMember(m.id)
		g.refreshMetadata(req.Topics)
		g.computeTarget()
		wait, err := live.write(g, req.Topics)
		if err != nil {
			return fail(kerr.CoordinatorNotAvailable, "")
		}
		return ShareHeartbeatResult{MemberID: req.MemberID, MemberEpoch: -1, Wait: wait}, []string{m.id}
	}
	bumped := false
	var before []TopicPartition
	if req.MemberEpoch == 0 {
		if m == nil {
			if len(g.members) >= cfg.MaxSize {
				return fail(kerr.GroupMaxSizeReached, fmt.Sprintf("The share group has reached its maximum capacity of %d members.", cfg.MaxSize))
			}
			m = &shareMember{id: req.MemberID, assigned: MemberAssignment{}}
			g.members[m.id] = m
			bumped = true
			c.logger.Info("member joined share group", "group", req.GroupID, "member", req.MemberID,
				"client_id", req.ClientID, "client_host", req.ClientHost)
		}
	} else {
		if m == nil {
			return fail(kerr.UnknownMemberID, fmt.Sprintf("Member %s is not a member of group %s.", req.MemberID, req.GroupID))
		}
		// A member may be one epoch behind: the answer that moved it on
		// was lost.
		if req.MemberEpoch > m.epoch || req.MemberEpoch < m.epoch && req.MemberEpoch != m.prevEpoch {
			return fail(kerr.FencedMemberEpoch, fmt.Sprintf("The share group member has a different epoch (%d) than the one known by the group coordinator (%d).",
				req.MemberEpoch, m.epoch))
		}
		before = partitionsOf(m.assigned)
	}
	if req.SubscribedTopics != nil {
		ts := slices.Clone(req.SubscribedTopics)
		slices.Sort(ts)
		ts = slices.Compact(ts)
		if !slices.Equal(ts, m.topics) {
			m.topics, bumped = ts, true
		}
	}
	if req.RackID != nil {
		m.rackID = req.RackID
	}
	m.clientID, m.clientHost = req.ClientID, req.ClientHost
	if g.refreshMetadata(req.Topics) || g.initializedAssignmentPending() {
		bumped = true
	}
	if bumped {
		g.epoch++
	}
	g.computeTarget()
	if m.epoch != g.assignmentEpoch && !g.countsPending {
		m.prevEpoch, m.epoch = m.epoch, g.assignmentEpoch
		m.assigned = cloneAssignment(g.target[m.id])
	}
	m.sessionDeadline = now.Add(cfg.SessionTimeout)
	init := g.markInitializing(req.Topics, c.idsFor(req.Topics), now, shareInitializeRetry)
	wait, err := live.write(g, req.Topics, m.id)
	if err != nil {
		return fail(kerr.CoordinatorNotAvailable, "")
	}
	res := ShareHeartbeatResult{MemberID: m.id, MemberEpoch: m.epoch, HeartbeatInterval: cfg.HeartbeatInterval, Wait: wait}
	if len(init) > 0 {
		res.init = &shareInit{group: g.id, epoch: g.epoch, parts: init, view: req.Topics}
	}
	// A full request (subscribed topics set) is answered with the
	// assignment, as Kafka does.
	if req.MemberEpoch == 0 || req.SubscribedTopics != nil || !slices.Equal(before, partitionsOf(m.assigned)) {
		res.Assignment = cloneAssignment(m.assigned)
	}
	return res, nil
}

// releaseShareMembers gives back the records the members held, outside
// any group lock.
func (c *Coordinator) releaseShareMembers(release func(group, member string) error, group string, members []string) {
	if release == nil {
		return
	}
	for _, m := range members {
		if err := release(group, m); err != nil {
			c.logger.Warn("releasing a share group member's records", "group", group, "member", m, "err", err)
		}
	}
}

func (g *shareGroup) clone() *shareGroup {
	n := *g
	n.members = make(map[string]*shareMember, len(g.members))
	for id, m := range g.members {
		c := *m
		c.assigned = cloneAssignment(m.assigned)
		c.topics = slices.Clone(m.topics)
		n.members[id] = &c
	}
	n.target = make(map[string]MemberAssignment, len(g.target))
	for id, a := range g.target {
		n.target[id] = cloneAssignment(a)
	}
	n.partitionCounts = maps.Clone(g.partitionCounts)
	n.initialized, n.initializing = cloneAssignment(g.initialized), cloneAssignment(g.initializing)
	n.initializingAt, n.deleting, n.stateChanged = maps.Clone(g.initializingAt), slices.Clone(g.deleting), false
	return &n
}

func (g *shareGroup) removeMember(id string) {
	delete(g.members, id)
	delete(g.target, id)
	g.epoch++
}

// refreshMetadata reports whether the subscribed topics' partition
// counts changed, which calls for a new group epoch.
func (g *shareGroup) refreshMetadata(view TopicView) bool {
	if view == nil {
		return false
	}
	md := map[string]int32{}
	for _, m := range g.members {
		for _, t := range m.topics {
			if n := view.Partitions(t); n > 0 {
				md[t] = n
			}
		}
	}
	if g.countsPending {
		g.countsPending = false
		if metadataHash(md, g.holder.c.idsFor(view)) == g.loadedHash {
			g.partitionCounts = md
		}
	}
	if maps.Equal(md, g.partitionCounts) {
		return false
	}
	g.partitionCounts = md
	return true
}

// computeTarget recomputes the target assignment when the group epoch
// moved past it, of the partitions whose share state is initialized.
func (g *shareGroup) computeTarget() {
	if g.assignmentEpoch == g.epoch || g.countsPending {
		return
	}
	ms := make([]shareAssignMember, 0, len(g.members))
	for _, m := range g.members {
		var ts []string
		for _, t := range m.topics {
			if g.partitionCounts[t] > 0 {
				ts = append(ts, t)
			}
		}
		ms = append(ms, shareAssignMember{ID: m.id, Topics: ts, Current: g.target[m.id]})
	}
	g.target = assignShare(ms, g.partitionCounts, g.initialized)
	g.assignmentEpoch = g.epoch
}

// tick fences the members whose session lapsed; the group's timer calls
// it with the holder's mu held, and it returns the fenced members.
func (g *shareGroup) tick(now time.Time, view Topics) []string {
	var ids []string
	for id, m := range g.members {
		if due(m.sessionDeadline, now) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	next := g.clone()
	for _, id := range ids {
		next.removeMember(id)
	}
	var tv TopicView
	if view != nil {
		tv = view
		next.refreshMetadata(tv)
	}
	next.computeTarget()
	if _, err := g.write(next, tv); err != nil {
		return nil
	}
	g.holder.c.logger.Info("share group members fenced: session timed out", "group", g.id, "members", ids)
	return ids
}

// nextDeadline is the earliest member session deadline (zero: none).
func (g *shareGroup) nextDeadline() time.Time {
	var next time.Time
	for _, m := range g.members {
		if !m.sessionDeadline.IsZero() && (next.IsZero() || m.sessionDeadline.Before(next)) {
			next = m.sessionDeadline
		}
	}
	return next
}

// arm sets the share group's one timer (shareTimer) at its members'
// earliest session deadline, or stops it when no member has one; a
// deadline its work left due (a fencing write refused) is tried again
// after retryDue. The caller holds the holder's mu and no shard's lock.
func (g *shareGroup) arm(now time.Time) {
	t := groupTimer{kind: shareTimer}
	at := g.nextDeadline()
	if at.IsZero() {
		g.holder.cancelTimer(t)
		return
	}
	if !at.After(now) {
		at = now.Add(retryDue)
	}
	g.holder.armTimer(t, at)
}

// armReplayed is arm for a replay, which may run under a shard's lock:
// the load's end sets the timer (armLoaded).
func (g *shareGroup) armReplayed() {
	g.holder.armReplayed(groupTimer{kind: shareTimer}, g.nextDeadline())
}

// fireShareTimer fences the members of share group id whose session
// lapsed and releases the records they held.
func (c *Coordinator) fireShareTimer(id string) {
	c.mu.RLock()
	var g *shareGroup
	if s := c.shardOf(id); s != nil {
		g = s.share[id]
	}
	release := c.share.release
	c.mu.RUnlock()
	if g == nil {
		return
	}
	holder := g.holder
	now := c.clock.Now()
	holder.mu.Lock()
	holder.catchUp()
	var fenced []string
	if cur := c.shareGroupOf(holder, false); cur != nil {
		fenced = cur.tick(now, c.topics())
		cur.arm(now)
	}
	holder.mu.Unlock()
	c.releaseShareMembers(release, id, fenced)
}

// write appends the records that turn g into next and, once appended,
// replays them into g; touched are the members whose metadata and
// current assignment may have changed. A failed append leaves g as it
// was.
func (g *shareGroup) write(next *shareGroup, view TopicView, touched ...string) (Durable, error) {
	c := g.holder.c
	ids := c.idsFor(view)
	recs := g.recordsTo(next, ids, touched)
	var wait Durable
	if len(recs) > 0 {
		var err error
		if wait, err = g.holder.appendWrite(recs, ids, nil); err != nil {
			c.logger.Warn("writing share group records", "group", g.id, "err", err)
			return nil, err
		}
		now := c.clock.Now()
		cfg, _ := c.shareConfig(g.id)
		for _, r := range recs {
			if rec, ok, err := decodeShareRecord(r.Key, r.Value); ok && err == nil {
				g.replay(rec, ids, cfg, now)
			}
		}
	}
	// What no record holds: the session deadlines and the counts the
	// target was computed from.
	g.partitionCounts, g.countsPending, g.loadedHash = next.partitionCounts, next.countsPending, next.loadedHash
	for id, m := range g.members {
		if n := next.members[id]; n != nil {
			m.sessionDeadline = n.sessionDeadline
		}
	}
	g.arm(c.clock.Now())
	return wait, nil
}

func (m *shareMember) metadataValue() []byte {
	v := &shareMemberValue{RackID: m.rackID, ClientID: m.clientID, ClientHost: m.clientHost, SubscribedTopics: m.topics}
	if v.SubscribedTopics == nil {
		v.SubscribedTopics = []string{}
	}
	return v.encode()
}

func (m *shareMember) currentValue(ids TopicIDs) []byte {
	return (&shareCurrentValue{MemberEpoch: m.epoch, PreviousMemberEpoch: m.prevEpoch,
		Assigned: toTopicPartitions(m.assigned, ids)}).encode()
}

// recordsTo returns the records that turn g into next, in Kafka's order:
// tombstones of removed members (current assignment, target, metadata),
// the touched members' metadata, the group epoch, the target assignment
// and its epoch, the touched members' current assignments, then the
// share state of the partitions (ShareGroupStatePartitionMetadata).
func (g *shareGroup) recordsTo(next *shareGroup, ids TopicIDs, touched []string) []Record {
	recs := goneMemberTombstones(g.id, g.members, next.members, g.target,
		keyShareGroupCurrentAssignment, keyShareGroupTargetMember, keyShareGroupMemberMetadata)
	for _, id := range touched {
		m := next.members[id]
		if m == nil {
			continue
		}
		v := m.metadataValue()
		if old := g.members[id]; old == nil || !slices.Equal(v, old.metadataValue()) {
			recs = append(recs, Record{Key: consumerKey(keyShareGroupMemberMetadata, g.id, id), Value: v})
		}
	}
	if !g.epochWritten || g.epoch != next.epoch {
		recs = append(recs, Record{Key: consumerKey(keyShareGroupMetadata, g.id),
			Value: shareGroupMetadataValue(next.epoch, metadataHash(next.partitionCounts, ids))})
	}
	if ids == nil {
		// Assignments name topics by id; without ids they are not written.
		return recs
	}
	recs = append(recs, targetAssignmentRecords(g.id, keyShareGroupTargetMember, keyShareGroupTargetMetadata,
		g.target, next.target, slices.Sorted(maps.Keys(next.members)), g.assignmentEpoch, next.assignmentEpoch, ids)...)
	for _, id := range touched {
		m := next.members[id]
		if m == nil {
			continue
		}
		v := m.currentValue(ids)
		if old := g.members[id]; old == nil || !slices.Equal(v, old.currentValue(ids)) {
			recs = append(recs, Record{Key: consumerKey(keyShareGroupCurrentAssignment, g.id, id), Value: v})
		}
	}
	if v := next.stateValue(ids); next.stateChanged || !slices.Equal(v, g.stateValue(ids)) {
		recs = append(recs, Record{Key: consumerKey(keyShareGroupStatePartitionMetadata, g.id), Value: v})
	}
	return recs
}

// replay applies one share group record: the one function that applies
// them, for writes and at load.
func (g *shareGroup) replay(rec shareRecord, ids TopicIDs, cfg ShareConfig, now time.Time) {
	switch rec.Type {
	case keyShareGroupMetadata:
		if rec.Tombstone {
			return
		}
		g.epoch, g.loadedHash, g.epochWritten = rec.Epoch, rec.MetadataHash, true
	case keyShareGroupTargetMetadata:
		if rec.Tombstone {
			rec.Epoch = 0
		}
		g.assignmentEpoch = rec.Epoch
	case keyShareGroupTargetMember:
		if rec.Tombstone {
			delete(g.target, rec.Member)
			return
		}
		g.target[rec.Member] = fromTopicPartitions(rec.Target, ids)
	case keyShareGroupMemberMetadata:
		if rec.Tombstone {
			delete(g.members, rec.Member)
			return
		}
		m := g.loadedMember(rec.Member, cfg, now)
		v := rec.MemberMeta
		m.rackID, m.clientID, m.clientHost, m.topics = v.RackID, v.ClientID, v.ClientHost, v.SubscribedTopics
	case keyShareGroupCurrentAssignment:
		m := g.members[rec.Member]
		if rec.Tombstone {
			if m != nil {
				m.epoch, m.prevEpoch, m.assigned = 0, 0, MemberAssignment{}
			}
			return
		}
		if m == nil {
			m = g.loadedMember(rec.Member, cfg, now)
		}
		m.epoch, m.prevEpoch = rec.Current.MemberEpoch, rec.Current.PreviousMemberEpoch
		m.assigned = fromTopicPartitions(rec.Current.Assigned, ids)
	case keyShareGroupStatePartitionMetadata:
		g.replayState(rec, ids, now)
	}
}

// loadedMember returns the member being replayed, creating it with its
// session started now.
func (g *shareGroup) loadedMember(id string, cfg ShareConfig, now time.Time) *shareMember {
	if m := g.members[id]; m != nil {
		return m
	}
	m := &shareMember{id: id, assigned: MemberAssignment{}, sessionDeadline: now.Add(cfg.SessionTimeout)}
	g.members[id] = m
	return m
}

// tombstones delete the group, in Kafka's order: current assignments,
// targets, the target's epoch, members' metadata, the share-partitions
// metadata and the group epoch.
func (g *shareGroup) tombstones() []Record {
	ids := slices.Sorted(maps.Keys(g.members))
	var recs []Record
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyShareGroupCurrentAssignment, g.id, id)})
	}
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyShareGroupTargetMember, g.id, id)})
	}
	recs = append(recs, Record{Key: consumerKey(keyShareGroupTargetMetadata, g.id)})
	for _, id := range ids {
		recs = append(recs, Record{Key: consumerKey(keyShareGroupMemberMetadata, g.id, id)})
	}
	return append(recs, Record{Key: consumerKey(keyShareGroupStatePartitionMetadata, g.id)},
		Record{Key: consumerKey(keyShareGroupMetadata, g.id)})
}

// loadShareRecord replays a share group record found while loading, and
// reports whether it was one. The group comes back with its members,
// their epochs and assignments and the target, and every member's
// session starts again at load, as in Kafka.
func (c *Coordinator) loadShareRecord(s *groupShard, key, value []byte, now time.Time) (groupID string, ok bool) {
	rec, ok, err := decodeShareRecord(key, value)
	if !ok {
		return "", false
	}
	if err != nil {
		c.logger.Warn("skipping a malformed share group record", "type", rec.Type, "group", rec.Group)
		return "", true
	}
	holder, _ := c.shardGroup(s, rec.Group, !rec.Tombstone)
	if holder == nil {
		return "", true
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	// What a load replays is durable: the durable view gets it too.
	holder.durableShare = holder.replayShareOver(holder.durableShare, rec, c.topics())
	if rec.Tombstone && rec.Type == keyShareGroupMetadata {
		c.dropShareGroup(holder)
		if len(holder.offsets) == 0 && holder.generation == 0 && holder.protocolType == "" && c.consumerGroupOf(holder, false) == nil {
			holder.transition(Dead, now)
		}
		return rec.Group, true
	}
	g := c.shareGroupOf(holder, !rec.Tombstone)
	if g == nil {
		return rec.Group, true
	}
	if holder.state == Dead {
		holder.transition(Empty, now)
	}
	cfg, _ := c.shareConfig(rec.Group)
	g.replay(rec, c.topics(), cfg, now)
	if rec.Type == keyShareGroupMetadata {
		g.countsPending = true
	}
	g.armReplayed()
	return rec.Group, true
}

// ShareMember is one member as ShareGroupDescribe reports it.
type ShareMember struct {
	MemberID    string
	RackID      *string
	MemberEpoch int32
	ClientID    string
	ClientHost  string
	Topics      []string
	Assignment  MemberAssignment
}

// ShareGroupDescription is one group of a ShareGroupDescribe.
type ShareGroupDescription struct {
	GroupID         string
	Err             *kerr.Error
	ErrMessage      string
	State           string
	GroupEpoch      int32
	AssignmentEpoch int32
	Assignor        string
	Members         []ShareMember
}

// DescribeShareGroups reports share groups (ShareGroupDescribe), with
// Kafka's errors for ids that are unknown or of another type.
func (c *Coordinator) DescribeShareGroups(ids []string) []ShareGroupDescription {
	c.mu.RLock()
	assignor := c.share.cfg.Assignor
	if !c.share.cfgSet {
		assignor = DefaultShareConfig().Assignor
	}
	c.mu.RUnlock()
	out := make([]ShareGroupDescription, len(ids))
	for i, id := range ids {
		d := &out[i]
		d.GroupID = id
		if d.Err = c.unavailable(id); d.Err != nil {
			continue
		}
		holder := c.group(id, false)
		if holder == nil {
			d.Err, d.ErrMessage = kerr.GroupIDNotFound, fmt.Sprintf("Group %s not found.", id)
			continue
		}
		holder.mu.Lock()
		g := holder.committedShareGroup()
		switch {
		case g != nil:
			d.State, d.GroupEpoch, d.AssignmentEpoch, d.Assignor = g.stateName(), g.epoch, g.assignmentEpoch, assignor
			for _, mid := range slices.Sorted(maps.Keys(g.members)) {
				m := g.members[mid]
				d.Members = append(d.Members, ShareMember{MemberID: m.id, RackID: m.rackID, MemberEpoch: m.epoch,
					ClientID: m.clientID, ClientHost: m.clientHost, Topics: slices.Clone(m.topics), Assignment: cloneAssignment(m.assigned)})
			}
		case holder.state == Dead || c.shareGroupOf(holder, false) != nil:
			// A share group whose first records are not durable yet is
			// not found, as Kafka's read at its last committed offset.
			d.Err, d.ErrMessage = kerr.GroupIDNotFound, fmt.Sprintf("Group %s not found.", id)
		default:
			d.Err, d.ErrMessage = kerr.GroupIDNotFound, fmt.Sprintf("Group %s is not a share group.", id)
		}
		holder.mu.Unlock()
	}
	return out
}

// stateName is Kafka's ShareGroupState: Empty or Stable (members take
// their target at once, so there is no reconciling).
func (g *shareGroup) stateName() string {
	if len(g.members) == 0 {
		return "Empty"
	}
	return "Stable"
}

// deleteShareGroup deletes an empty share group (DeleteGroups) with its
// tombstones; the caller holds holder.mu.
func (c *Coordinator) deleteShareGroup(holder *classicGroup, g *shareGroup) (*kerr.Error, Durable) {
	if len(g.members) > 0 {
		return kerr.NonEmptyGroup, nil
	}
	wait, err := holder.appendRecords(g.tombstones())
	if err != nil {
		return kerr.CoordinatorNotAvailable, nil
	}
	holder.cancelTimer(groupTimer{kind: shareTimer})
	c.dropShareGroup(holder)
	holder.transition(Dead, c.clock.Now())
	c.drop(holder)
	return nil, wait
}
