package group

import (
	"maps"
	"regexp"
	"slices"
	"time"
)

// consumerGroup is one group of the consumer protocol (KIP-848). Its
// committed offsets stay in the classicGroup of the same id (holder),
// whose mu guards every field here too, so a group id has one lock
// whichever protocol it speaks.
type consumerGroup struct {
	holder *classicGroup
	id     string

	// epoch is the group epoch, bumped by every change of membership,
	// subscriptions or subscribed topics' partition counts;
	// assignmentEpoch is the epoch the target assignment was computed at.
	epoch           int32
	assignmentEpoch int32
	members         map[string]*consumerMember
	static          map[string]string // group.instance.id -> member id
	target          map[string]MemberAssignment
	// partitionCounts is the subscribed topics' partition counts the
	// target was computed from.
	partitionCounts map[string]int32
	assignor        string

	// countsPending: the group was loaded and partitionCounts is not known
	// yet; loadedHash is the MetadataHash it was persisted with, to tell
	// at the first look at the topics whether they changed meanwhile.
	countsPending bool
	loadedHash    int64
	// epochWritten: a ConsumerGroupMetadata record of the group was
	// replayed, so the group exists in the log.
	epochWritten bool
	// regexTopics is, by member, the topics its regex subscribed it to
	// at the last look at the topics (nil: not looked yet), so that a
	// match gained or lost by a DESCRIBE alone is a change too.
	regexTopics map[string][]string
}

// memberState is a member's reconciliation state (Kafka's MemberState).
type memberState int8

const (
	memberStable memberState = iota
	// memberUnrevoked: the member must first give up revoking.
	memberUnrevoked
	// memberUnreleased: part of its target is still owned by others.
	memberUnreleased
)

var memberStateNames = [...]string{"STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS"}

func (s memberState) String() string { return memberStateNames[s] }

// consumerMember is one member and what it owns. assigned and revoking
// never overlap, and no partition is in two members' assigned∪revoking.
type consumerMember struct {
	id         string
	instanceID *string
	rackID     *string
	clientID   string
	clientHost string

	epoch     int32
	prevEpoch int32
	state     memberState
	// left marks a static member that left with epoch -2: it keeps its
	// assignment for its instance id until its session lapses, and its
	// epoch is -2, as in Kafka.
	left bool

	topics         []string
	regex          string
	compiled       *regexp.Regexp
	serverAssignor string
	// mayDescribe is the member's last heartbeat's MayDescribe; it asks
	// the authorizer of the moment, so other members' heartbeats resolve
	// this member's regex with its own principal's rights.
	mayDescribe func(topic string) bool

	assigned MemberAssignment
	revoking MemberAssignment

	rebalanceTimeout time.Duration
	sessionDeadline  time.Time
	revokeDeadline   time.Time
}

func newConsumerGroup(holder *classicGroup) *consumerGroup {
	// Kafka 4.4's ModernGroup starts at group epoch 1, so the first
	// member's join makes it 2, and no member epoch of the group is 1.
	return &consumerGroup{holder: holder, id: holder.id, epoch: 1, members: map[string]*consumerMember{},
		static: map[string]string{}, target: map[string]MemberAssignment{}, partitionCounts: map[string]int32{}}
}

// active reports whether the group has members; an empty consumer group
// gives way to a classic one, as in Kafka.
func (g *consumerGroup) active() bool { return len(g.members) > 0 }

// subscribedTopics resolves a member's subscription against the topics.
//
// A regex (SubscribedTopicRegex) must match the whole topic name, as
// RE2/J's matches() does. Go's regexp implements the same RE2 syntax; we
// know of no difference that matters for topic names, and what Go
// rejects is answered INVALID_REGULAR_EXPRESSION. Internal topics match
// like any other, as Kafka's coordinator matches every topic of its image
// (franz-go's Test848RegexBrokerResolves relies on it). Regexes are
// resolved at each heartbeat of the group, not in the background as Kafka
// does, so a new matching topic is noticed at the
// next heartbeat.
func (m *consumerMember) subscribedTopics(view TopicView) []string {
	out := slices.Clone(m.topics)
	if m.compiled != nil && view != nil {
		for _, name := range view.Names() {
			if m.regexMatches(name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// regexMatches reports whether the member's regex subscribes it to
// topic: the regex matches and the member may describe the topic (Kafka
// drops the matches the member may not describe, so that a regex does not
// reveal, or assign, topics it cannot see).
func (m *consumerMember) regexMatches(topic string) bool {
	return m.compiled != nil && m.compiled.MatchString(topic) && (m.mayDescribe == nil || m.mayDescribe(topic))
}

// metadata returns the partition counts of every topic some member
// subscribes to, existing ones only.
func (g *consumerGroup) metadata(view TopicView) map[string]int32 {
	out := map[string]int32{}
	for _, m := range g.members {
		for _, t := range m.subscribedTopics(view) {
			if view == nil {
				continue
			}
			if n := view.Partitions(t); n > 0 {
				out[t] = n
			}
		}
	}
	return out
}

// refreshMetadata reports whether the subscribed topics' partition
// counts changed (a topic created, deleted or grown, or a regex now
// matching another topic), which calls for a new group epoch.
func (g *consumerGroup) refreshMetadata(view TopicView) bool {
	if view == nil {
		return false // nothing known of the topics: nothing changed
	}
	md := g.metadata(view)
	if g.countsPending {
		g.resolveCounts(md, g.holder.c.idsFor(view))
	}
	known, regexTopics := g.regexTopics != nil, g.regexSubscriptions(md)
	if maps.Equal(md, g.partitionCounts) && (!known || maps.EqualFunc(regexTopics, g.regexTopics, slices.Equal)) {
		g.regexTopics = regexTopics
		return false
	}
	g.partitionCounts, g.regexTopics = md, regexTopics
	return true
}

// regexSubscriptions is, by member with a regex, the topics of counts
// its regex subscribes it to.
func (g *consumerGroup) regexSubscriptions(counts map[string]int32) map[string][]string {
	out := map[string][]string{}
	for id, m := range g.members {
		if m.compiled == nil {
			continue
		}
		var topics []string
		for t := range counts {
			if m.regexMatches(t) {
				topics = append(topics, t)
			}
		}
		slices.Sort(topics)
		out[id] = topics
	}
	return out
}

// computeTarget recomputes the target assignment when the group epoch
// moved past it.
func (g *consumerGroup) computeTarget() {
	if g.assignmentEpoch == g.epoch || g.countsPending {
		// A loaded group computes nothing before it saw the topics.
		return
	}
	var ms []AssignMember
	for _, m := range g.members {
		ms = append(ms, AssignMember{ID: m.id, Topics: m.subscribedTopicsFrom(g.partitionCounts)})
	}
	a := assignorNamed(g.chooseAssignor())
	g.target = a.Assign(ms, g.partitionCounts, g.target)
	g.assignmentEpoch = g.epoch
}

// subscribedTopicsFrom is the member's topics among those in counts
// (regexes are matched against them, as they were resolved already).
func (m *consumerMember) subscribedTopicsFrom(counts map[string]int32) []string {
	var out []string
	for t := range counts {
		if slices.Contains(m.topics, t) || m.regexMatches(t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// chooseAssignor is the assignor most members ask for (ties to the
// smaller name), or the default when none asks.
func (g *consumerGroup) chooseAssignor() string {
	votes := map[string]int{}
	for _, m := range g.members {
		if m.serverAssignor != "" {
			votes[m.serverAssignor]++
		}
	}
	best := ""
	for name, n := range votes {
		if best == "" || n > votes[best] || n == votes[best] && name < best {
			best = name
		}
	}
	if best == "" {
		best = assignors[0].Name()
	}
	g.assignor = best
	return best
}

// ownedByOthers reports whether a member other than m holds tp, as
// assigned or still revoking.
func (g *consumerGroup) ownedByOthers(m *consumerMember, tp TopicPartition) bool {
	for _, o := range g.members {
		if o != m && (hasPartition(o.assigned, tp) || hasPartition(o.revoking, tp)) {
			return true
		}
	}
	return false
}

func hasPartition(ma MemberAssignment, tp TopicPartition) bool {
	return slices.Contains(ma[tp.Topic], tp.Partition)
}

func addPartition(ma MemberAssignment, tp TopicPartition) {
	ps := ma[tp.Topic]
	if i, found := slices.BinarySearch(ps, tp.Partition); !found {
		ma[tp.Topic] = slices.Insert(ps, i, tp.Partition)
	}
}

func partitionsOf(ma MemberAssignment) []TopicPartition {
	var out []TopicPartition
	for t, ps := range ma {
		for _, p := range ps {
			out = append(out, TopicPartition{t, p})
		}
	}
	slices.SortFunc(out, compareTP)
	return out
}

func cloneAssignment(ma MemberAssignment) MemberAssignment {
	out := make(MemberAssignment, len(ma))
	for t, ps := range ma {
		out[t] = slices.Clone(ps)
	}
	return out
}

// reconcile moves a member toward its target (Kafka's
// CurrentAssignmentBuilder): partitions leaving it are revoked first, and
// only once the member acknowledged that (owned no longer lists them)
// does it move to the new epoch and receive partitions, and only those
// no other member still holds.
func (g *consumerGroup) reconcile(m *consumerMember, owned []TopicPartition, ownedSent bool, now time.Time) {
	if m.state == memberUnrevoked {
		if !ownedSent {
			return
		}
		for _, tp := range owned {
			if hasPartition(m.revoking, tp) {
				return
			}
		}
		m.revoking = MemberAssignment{}
		m.revokeDeadline = time.Time{}
		m.state = memberStable
	}
	if m.epoch == g.assignmentEpoch && m.state == memberStable {
		return
	}
	target := g.target[m.id]
	keep, revoke := MemberAssignment{}, MemberAssignment{}
	for _, tp := range partitionsOf(m.assigned) {
		if hasPartition(target, tp) {
			addPartition(keep, tp)
		} else {
			addPartition(revoke, tp)
		}
	}
	if len(revoke) > 0 {
		m.assigned, m.revoking = keep, revoke
		m.state = memberUnrevoked
		m.revokeDeadline = now.Add(m.rebalanceTimeout)
		g.armRevocation(m)
		return
	}
	m.state = memberStable
	for _, tp := range partitionsOf(target) {
		if hasPartition(keep, tp) {
			continue
		}
		if g.ownedByOthers(m, tp) {
			m.state = memberUnreleased
			continue
		}
		addPartition(keep, tp)
	}
	m.assigned = keep
	if m.epoch != g.assignmentEpoch {
		m.prevEpoch, m.epoch = m.epoch, g.assignmentEpoch
	}
}

// removeMember drops a member and bumps the epoch; its partitions are
// free for others from now on.
func (g *consumerGroup) removeMember(m *consumerMember) {
	delete(g.members, m.id)
	delete(g.target, m.id)
	if m.instanceID != nil && g.static[*m.instanceID] == m.id {
		delete(g.static, *m.instanceID)
	}
	g.epoch++
}
