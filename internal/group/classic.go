package group

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// classicGroup is one group of the classic protocol and its committed
// offsets. Every field is guarded by mu.
type classicGroup struct {
	c  *Coordinator
	mu sync.Mutex
	// resigned is set once the group's partition was unloaded (or its
	// topic deleted): what a request still holding it writes must not
	// land in the partition loaded since, whose groups are others.
	resigned atomic.Bool
	// shard is the partition's state that holds the group; guarded by
	// c.mu (group_shard.go).
	shard *groupShard

	id         string
	state      State
	prevState  State
	stateSince time.Time
	generation int32
	// protocolType is fixed by the first member ("consumer", "connect",
	// ...); protocol is the one chosen at the last completed join.
	protocolType string
	protocol     string
	leader       string

	members map[string]*member
	order   []string          // member ids in join order, for determinism
	static  map[string]string // group.instance.id -> member id
	// pending are member ids handed out with MEMBER_ID_REQUIRED, with the
	// time they lapse unless the member joins with them.
	pending map[string]time.Time
	// pendingSync are members of the current generation that have not
	// sent SyncGroup yet; they are dropped at syncDeadline.
	pendingSync  map[string]bool
	syncDeadline time.Time

	// joinDeadline ends the join phase. An initial join (the group was
	// Empty) waits group.initial.rebalance.delay.ms, and again while new
	// members keep arriving, up to the rebalance timeout.
	joinDeadline   time.Time
	initialJoin    bool
	initialDelay   time.Duration
	initialLeft    time.Duration
	newMemberAdded bool

	offsets map[TopicPartition]CommittedOffset
	// unapplied is the offset writes appended but not yet durable, in
	// append order (offsets_durable.go).
	unapplied []*unappliedWrite
	// durableMeta is the group's last durable GroupMetadataValue, encoded
	// (nil: a tombstone), once metaDurable; a metadata write that never
	// becomes durable sets the live group back to it (revertClassic).
	durableMeta []byte
	metaDurable bool
	// txn is the offsets of open transactions (txn_offsets.go).
	txn groupTxnOffsets
	// durableConsumer is the KIP-848 group as its durable records make
	// it, what reads see (consumer_durable.go); nil when there is none.
	durableConsumer *consumerGroup
	// durableShare is the share group as its durable records make it,
	// what reads see (share_group_durable.go); nil when there is none.
	durableShare *shareGroup
}

func newClassicGroup(c *Coordinator, id string, now time.Time) *classicGroup {
	return &classicGroup{
		c: c, id: id, stateSince: now,
		members: map[string]*member{}, static: map[string]string{},
		pending: map[string]time.Time{}, pendingSync: map[string]bool{},
		offsets: map[TopicPartition]CommittedOffset{},
	}
}

func (g *classicGroup) transition(s State, now time.Time) {
	g.prevState, g.state, g.stateSince = g.state, s, now
}

func (g *classicGroup) add(m *member, join chan JoinResult) {
	if len(g.members) == 0 {
		// The first member sets the protocol type; an empty group keeps
		// the last one, as Kafka lists it.
		g.protocolType = m.protocolType
	}
	g.members[m.id] = m
	g.order = append(g.order, m.id)
	if g.leader == "" {
		g.leader = m.id
	}
	if m.instanceID != nil {
		g.static[*m.instanceID] = m.id
	}
	m.join = join
}

// remove drops a member; a leader is replaced by the oldest member left.
func (g *classicGroup) remove(id string) {
	m, ok := g.members[id]
	if !ok {
		return
	}
	delete(g.members, id)
	g.cancelTimer(groupTimer{heartbeatTimer, id})
	g.order = slices.DeleteFunc(g.order, func(s string) bool { return s == id })
	if m.instanceID != nil && g.static[*m.instanceID] == id {
		delete(g.static, *m.instanceID)
	}
	delete(g.pendingSync, id)
	if g.leader == id {
		g.leader = ""
		if len(g.order) > 0 {
			g.leader = g.order[0]
		}
	}
}

func (g *classicGroup) allMembers() []*member {
	out := make([]*member, len(g.order))
	for i, id := range g.order {
		out[i] = g.members[id]
	}
	return out
}

func (g *classicGroup) numAwaitingJoin() int {
	n := 0
	for _, m := range g.members {
		if m.awaitingJoin() {
			n++
		}
	}
	return n
}

func (g *classicGroup) hasAllMembersJoined() bool {
	return g.numAwaitingJoin() == len(g.members) && len(g.pending) == 0
}

func (g *classicGroup) rebalanceTimeout() time.Duration {
	var d time.Duration
	for _, m := range g.members {
		d = max(d, m.rebalanceTimeout)
	}
	return d
}

// candidateProtocols are the protocols every member supports.
func (g *classicGroup) candidateProtocols() map[string]bool {
	count := map[string]int{}
	for _, m := range g.members {
		for _, p := range m.protocols {
			count[p.Name]++
		}
	}
	out := map[string]bool{}
	for name, n := range count {
		if n == len(g.members) {
			out[name] = true
		}
	}
	return out
}

// supportsProtocols: a member may join when it shares the group's
// protocol type and at least one protocol every member supports.
func (g *classicGroup) supportsProtocols(ptype string, protocols []Protocol) bool {
	if g.state == Empty {
		return ptype != "" && len(protocols) > 0
	}
	if ptype != g.protocolType {
		return false
	}
	cands := g.candidateProtocols()
	for _, p := range protocols {
		if cands[p.Name] {
			return true
		}
	}
	return false
}

// selectProtocol lets each member vote for its most preferred candidate;
// the most votes wins, ties going to the leader's preference.
func (g *classicGroup) selectProtocol() string {
	cands := g.candidateProtocols()
	votes := map[string]int{}
	for _, m := range g.members {
		votes[m.vote(cands)]++
	}
	best, bestVotes := "", -1
	var prefs []Protocol
	if l, ok := g.members[g.leader]; ok {
		prefs = l.protocols
	}
	for _, p := range prefs {
		if cands[p.Name] && votes[p.Name] > bestVotes {
			best, bestVotes = p.Name, votes[p.Name]
		}
	}
	return best
}

// acceptJoining applies group.max.size to a joining member.
func (g *classicGroup) acceptJoining(memberID string) bool {
	maxSize := g.c.cfg.MaxSize
	switch g.state {
	case Empty, Dead:
		return true
	case PreparingRebalance:
		m, ok := g.members[memberID]
		return (ok && m.awaitingJoin()) || g.numAwaitingJoin() < maxSize
	default:
		_, ok := g.members[memberID]
		return ok || len(g.members) < maxSize
	}
}

// validateMember checks a request's member id and group.instance.id.
func (g *classicGroup) validateMember(memberID string, instanceID *string) *kerr.Error {
	if instanceID != nil {
		existing, ok := g.static[*instanceID]
		if !ok {
			return kerr.UnknownMemberID
		}
		if existing != memberID {
			return kerr.FencedInstanceID
		}
	}
	if _, ok := g.members[memberID]; !ok {
		return kerr.UnknownMemberID
	}
	return nil
}

func (g *classicGroup) protocolTypePtr() *string {
	if g.protocolType == "" {
		return nil
	}
	s := g.protocolType
	return &s
}

func (g *classicGroup) protocolPtr() *string {
	if g.protocol == "" {
		return nil
	}
	s := g.protocol
	return &s
}

// joinedMembers is the member list the leader is sent.
func (g *classicGroup) joinedMembers() []JoinedMember {
	out := make([]JoinedMember, 0, len(g.members))
	for _, m := range g.allMembers() {
		out = append(out, JoinedMember{MemberID: m.id, InstanceID: m.instanceID, Metadata: m.metadataFor(g.protocol)})
	}
	return out
}

// currentJoinResult answers a member's JoinGroup with the current
// generation, without a rebalance.
func (g *classicGroup) currentJoinResult(m *member, withMembers bool) JoinResult {
	r := JoinResult{MemberID: m.id, Generation: g.generation, ProtocolType: g.protocolTypePtr(),
		Protocol: g.protocolPtr(), Leader: g.leader}
	if withMembers {
		r.Members = g.joinedMembers()
	}
	return r
}
