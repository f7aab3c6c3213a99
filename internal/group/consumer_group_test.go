package group

import (
	"crypto/md5"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

type fakeTopics map[string]int32

func (f fakeTopics) Partitions(t string) int32 { return f[t] }
func (f fakeTopics) Names() []string {
	var out []string
	for n := range f {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TopicID gives every topic a fixed id made from its name.
func (f fakeTopics) TopicID(t string) ([16]byte, bool) {
	if _, ok := f[t]; !ok {
		return [16]byte{}, false
	}
	return md5.Sum([]byte(t)), true
}

func (f fakeTopics) TopicName(id [16]byte) (string, bool) {
	for n := range f {
		if md5.Sum([]byte(n)) == id {
			return n, true
		}
	}
	return "", false
}

// cclient is a simulated KIP-848 consumer: it remembers its epoch and
// what it owns, and acknowledges revocations on its next heartbeat.
type cclient struct {
	id    string
	epoch int32
	owned MemberAssignment
}

type consumerHarness struct {
	t      *testing.T
	clock  *fakeClock
	c      *Coordinator
	topics fakeTopics
}

func newConsumerHarness(t *testing.T, topics fakeTopics) *consumerHarness {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	return &consumerHarness{t: t, clock: clock, c: New(testConfig(), Options{Clock: clock, Topics: topics}), topics: topics}
}

func (h *consumerHarness) join(id string, topics ...string) (*cclient, ConsumerHeartbeatResult) {
	cl := &cclient{id: id, owned: MemberAssignment{}}
	r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: id, SubscribedTopics: topics,
		RebalanceTimeout: time.Minute, OwnedSent: true, Topics: h.topics})
	cl.apply(r)
	return cl, r
}

func (cl *cclient) apply(r ConsumerHeartbeatResult) {
	if r.Err == nil {
		cl.epoch = r.MemberEpoch
		if r.Assignment != nil {
			cl.owned = r.Assignment
		}
	}
}

func (h *consumerHarness) beat(cl *cclient) ConsumerHeartbeatResult {
	r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch,
		Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: h.topics})
	cl.apply(r)
	return r
}

// checkExclusive fails when a partition is held (assigned or revoking)
// by two members.
func (h *consumerHarness) checkExclusive() {
	h.t.Helper()
	holder := h.c.group("g", false)
	if holder == nil {
		return
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	g := h.c.consumerGroupOf(holder, false)
	if g == nil {
		return
	}
	seen := map[TopicPartition]string{}
	for _, m := range g.members {
		for _, ma := range []MemberAssignment{m.assigned, m.revoking} {
			for _, tp := range partitionsOf(ma) {
				if o, dup := seen[tp]; dup {
					h.t.Fatalf("%v held by %s and %s", tp, o, m.id)
				}
				seen[tp] = m.id
			}
		}
	}
}

func TestConsumerGroupJoinRevokeAssign(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 6})
	a, r := h.join("a", "t")
	if r.Err != nil || r.MemberEpoch != 2 || count(a.owned) != 6 || r.HeartbeatInterval != 5*time.Second {
		t.Fatalf("first join: %+v", r)
	}
	b, r := h.join("b", "t")
	if r.Err != nil || r.MemberEpoch != 3 || count(b.owned) != 0 {
		t.Fatalf("b must wait for a to revoke: %+v", r)
	}
	// a is told to keep 3; it still holds the other 3 until it says so.
	h.beat(a)
	if count(a.owned) != 3 || a.epoch != 2 {
		t.Fatalf("a revoking: %v epoch %d", a.owned, a.epoch)
	}
	h.beat(b)
	if count(b.owned) != 0 {
		t.Fatalf("b got partitions a has not released: %v", b.owned)
	}
	h.beat(a) // acknowledges: owns only 3 now
	if a.epoch != 3 {
		t.Fatalf("a epoch %d after revoking", a.epoch)
	}
	h.beat(b)
	if count(b.owned) != 3 || b.epoch != 3 {
		t.Fatalf("b after release: %v epoch %d", b.owned, b.epoch)
	}
	h.checkExclusive()
	// Stale and future epochs.
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: 7, Topics: h.topics}); r.Err != kerr.FencedMemberEpoch {
		t.Fatalf("future epoch: %v", r.Err)
	}
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "zz", MemberEpoch: 1, Topics: h.topics}); r.Err != kerr.UnknownMemberID {
		t.Fatalf("unknown member: %v", r.Err)
	}
	// b leaves: a takes everything back.
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "b", MemberEpoch: -1}); r.Err != nil || r.MemberEpoch != -1 {
		t.Fatalf("leave: %+v", r)
	}
	h.beat(a)
	if count(a.owned) != 6 || a.epoch != 4 {
		t.Fatalf("a after b left: %v epoch %d", a.owned, a.epoch)
	}
	if ls := h.c.List(nil, []string{"consumer"}); len(ls) != 1 || ls[0].State != "Stable" || ls[0].ProtocolType != "consumer" {
		t.Fatalf("listed: %+v", ls)
	}
}

func TestConsumerGroupSessionTimeout(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 4})
	a, _ := h.join("a", "t")
	b, _ := h.join("b", "t")
	h.beat(a)
	h.beat(a)
	h.beat(b)
	h.clock.advance(30 * time.Second)
	h.beat(a)
	h.clock.advance(20 * time.Second)
	h.c.Tick() // b's 45 s lapsed, a's not
	h.beat(a)
	if count(a.owned) != 4 {
		t.Fatalf("a after b timed out: %v", a.owned)
	}
	if r := h.beat(b); r.Err != kerr.UnknownMemberID {
		t.Fatalf("timed-out member: %v", r.Err)
	}
}

func TestConsumerGroupRevocationTimeout(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 4})
	a, _ := h.join("a", "t")
	b, _ := h.join("b", "t")
	// a hears about the revocation but never acknowledges it.
	h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: a.epoch, Topics: h.topics})
	for range 7 {
		h.clock.advance(10 * time.Second)
		h.beat(b)
		h.c.Tick()
	}
	if count(b.owned) != 4 {
		t.Fatalf("b after a missed its rebalance timeout: %v", b.owned)
	}
}

func TestConsumerGroupStaticMember(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 4})
	inst := "i1"
	join := func(id string) ConsumerHeartbeatResult {
		return h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: id, InstanceID: &inst,
			SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: h.topics})
	}
	r := join("s1")
	if r.Err != nil || count(r.Assignment) != 4 {
		t.Fatalf("static join: %+v", r)
	}
	if r := join("s2"); r.Err != kerr.UnreleasedInstanceID {
		t.Fatalf("second incarnation while first is active: %v", r.Err)
	}
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "s1", InstanceID: &inst, MemberEpoch: -2}); r.Err != nil || r.MemberEpoch != -2 {
		t.Fatalf("static leave: %+v", r)
	}
	r = join("s2")
	if r.Err != nil || r.MemberEpoch != 2 || count(r.Assignment) != 4 {
		t.Fatalf("rejoin keeps epoch and assignment: %+v", r)
	}
}

func TestConsumerGroupErrorsAndClassicCoexistence(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 1})
	bad := "nope"
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", SubscribedTopics: []string{"t"}, ServerAssignor: &bad}); r.Err != kerr.UnsupportedAssignor {
		t.Fatalf("assignor: %v", r.Err)
	}
	h.c.SetConsumerConfig(ConsumerConfig{SessionTimeout: 45 * time.Second, HeartbeatInterval: 5 * time.Second, MaxSize: 1})
	h.join("a", "t")
	if _, r := h.join("b", "t"); r.Err != kerr.GroupMaxSizeReached {
		t.Fatalf("max size: %v", r.Err)
	}
	// A classic JoinGroup to the active consumer group is refused.
	res := <-h.c.Join(JoinRequest{GroupID: "g", ProtocolType: "consumer", Protocols: []Protocol{{Name: "range"}},
		SessionTimeout: 10 * time.Second, RebalanceTimeout: 10 * time.Second})
	if res.Err != kerr.InconsistentGroupProtocol {
		t.Fatalf("classic join to consumer group: %v", res.Err)
	}
	// And a consumer heartbeat to a non-empty classic group too.
	h.c.Join(JoinRequest{GroupID: "classic", ProtocolType: "consumer", Protocols: []Protocol{{Name: "range"}},
		SessionTimeout: 10 * time.Second, RebalanceTimeout: 10 * time.Second})
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "classic", MemberID: "x", SubscribedTopics: []string{"t"}}); r.Err != kerr.GroupIDNotFound {
		t.Fatalf("consumer heartbeat to classic group: %v", r.Err)
	}
}

func TestConsumerGroupCommitUsesMemberEpoch(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 1})
	a, _ := h.join("a", "t")
	commit := func(member string, gen int32) *kerr.Error {
		err, _, _ := h.c.CommitOffsets(CommitRequest{GroupID: "g", MemberID: member, Generation: gen,
			Offsets: []OffsetToCommit{{TopicPartition: TopicPartition{"t", 0}, Offset: 5}}})
		return err
	}
	if err := commit("a", a.epoch); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if err := commit("a", a.epoch+1); err != kerr.StaleMemberEpoch {
		t.Fatalf("stale: %v", err)
	}
	if err := commit("x", a.epoch); err != kerr.UnknownMemberID {
		t.Fatalf("unknown: %v", err)
	}
	if _, offs := h.c.FetchOffsets("g", nil); len(offs) != 1 || offs[0].Offset != 5 {
		t.Fatalf("fetched %v", offs)
	}
}

func TestConsumerGroupRegexAndNewTopics(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"orders-1": 2, "other": 3})
	re := "orders-.*"
	r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", SubscribedRegex: &re, OwnedSent: true, Topics: h.topics})
	if r.Err != nil || count(r.Assignment) != 2 {
		t.Fatalf("regex join: %+v", r)
	}
	a := &cclient{id: "a"}
	a.apply(r)
	h.topics["orders-2"] = 4
	h.beat(a)
	if count(a.owned) != 6 || len(a.owned["other"]) != 0 {
		t.Fatalf("after new matching topic: %v", a.owned)
	}
	h.topics["__consumer_offsets"] = 50
	all := ".*"
	r = h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: a.epoch, SubscribedRegex: &all,
		Owned: partitionsOf(a.owned), OwnedSent: true, Topics: h.topics})
	// Internal topics match a regex as any other topic, as in Kafka.
	if r.Err != nil || count(r.Assignment) != 59 || len(r.Assignment["__consumer_offsets"]) != 50 {
		t.Fatalf("regex .*: %+v", r)
	}
	bad := "("
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: r.MemberEpoch, SubscribedRegex: &bad, Topics: h.topics}); r.Err != kerr.InvalidRegularExpression {
		t.Fatalf("bad regex: %v", r.Err)
	}
	if errs, _ := h.c.DeleteGroups([]string{"g"}); errs[0] != kerr.NonEmptyGroup {
		t.Fatalf("delete active consumer group: %v", errs[0])
	}
}

// TestConsumerGroupRegexLeavesOutUndescribableTopics: the topics a
// member's regex matches are its subscription only where its MayDescribe
// allows, at its own heartbeats and at the other members' (b subscribes
// to orders-2 by name, so orders-2 is among the group's topics), and a
// DESCRIBE granted or taken away is followed at the next heartbeats.
func TestConsumerGroupRegexLeavesOutUndescribableTopics(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"orders-1": 1, "orders-2": 4})
	describable := map[string]bool{"orders-1": true}
	re := "orders-.*"
	a := &cclient{id: "a", owned: MemberAssignment{}}
	beatA := func(join bool) ConsumerHeartbeatResult {
		hb := ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: a.epoch, Owned: partitionsOf(a.owned), OwnedSent: true,
			Topics: h.topics, MayDescribe: func(topic string) bool { return describable[topic] }}
		if join {
			hb.SubscribedRegex, hb.RebalanceTimeout = &re, time.Minute
		}
		r := h.c.ConsumerHeartbeat(hb)
		a.apply(r)
		return r
	}
	if r := beatA(true); r.Err != nil || count(a.owned) != 1 || len(a.owned["orders-1"]) != 1 {
		t.Fatalf("a's join: %+v, owns %v; want orders-1 only", r.Err, a.owned)
	}
	b, _ := h.join("b", "orders-2")
	// Balanced, a would take some of orders-2's partitions were it
	// subscribed to it.
	for range 6 {
		beatA(false)
		h.beat(b)
		h.checkExclusive()
	}
	if len(a.owned["orders-2"]) != 0 || len(b.owned["orders-2"]) != 4 {
		t.Fatalf("a may not describe orders-2: a owns %v, b owns %v; want b to own all of orders-2", a.owned, b.owned)
	}

	describable["orders-2"] = true
	for i := 0; len(a.owned["orders-2"]) == 0; i++ {
		if i == 10 {
			t.Fatalf("DESCRIBE on orders-2 granted: a still owns %v after %d rounds of heartbeats", a.owned, i)
		}
		beatA(false)
		h.beat(b)
		h.checkExclusive()
	}

	delete(describable, "orders-2")
	for i := 0; len(a.owned["orders-2"]) != 0 || len(b.owned["orders-2"]) != 4; i++ {
		if i == 10 {
			t.Fatalf("DESCRIBE on orders-2 taken away: a owns %v, b %v after %d rounds", a.owned, b.owned, i)
		}
		h.beat(b)
		beatA(false)
		h.checkExclusive()
	}
}

// TestConsumerGroupRandomNeverDoubleOwns drives thousands of random
// joins, heartbeats (some acknowledging, some not), leaves and timeouts,
// and checks after each step that no partition has two holders and that
// what each client believes it owns is a subset of what the group says.
func TestConsumerGroupRandomNeverDoubleOwns(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 42))
		h := newConsumerHarness(t, fakeTopics{"a": 5, "b": 3})
		clients := map[string]*cclient{}
		next := 0
		for step := range 3000 {
			ids := make([]string, 0, len(clients))
			for id := range clients {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			switch op := r.IntN(20); {
			case op < 2 || len(ids) == 0:
				id := fmt.Sprintf("m%d", next)
				next++
				topics := [][]string{{"a"}, {"b"}, {"a", "b"}}[r.IntN(3)]
				cl, res := h.join(id, topics...)
				if res.Err == nil {
					clients[id] = cl
				}
			case op < 3:
				id := ids[r.IntN(len(ids))]
				h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: id, MemberEpoch: -1})
				delete(clients, id)
			case op < 4:
				h.clock.advance(time.Duration(r.IntN(50)) * time.Second)
				h.c.Tick()
			case op < 6:
				// A heartbeat without owned partitions: nothing acknowledged.
				cl := clients[ids[r.IntN(len(ids))]]
				cl.apply(h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch, Topics: h.topics}))
			case op < 7:
				h.topics["b"] = int32(3 + r.IntN(3))
			default:
				cl := clients[ids[r.IntN(len(ids))]]
				res := h.beat(cl)
				if res.Err == kerr.UnknownMemberID || res.Err == kerr.FencedMemberEpoch {
					delete(clients, cl.id)
				} else if res.Err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, res.Err)
				}
			}
			h.checkExclusive()
			// Live clients believe they own only what the group has them hold.
			holder := h.c.group("g", false)
			holder.mu.Lock()
			g := h.c.consumerGroupOf(holder, false)
			for id, cl := range clients {
				m := g.members[id]
				if m == nil {
					continue // timed out; its next heartbeat learns it
				}
				for _, tp := range partitionsOf(cl.owned) {
					if !hasPartition(m.assigned, tp) && !hasPartition(m.revoking, tp) {
						holder.mu.Unlock()
						t.Fatalf("seed %d step %d: %s believes it owns %v", seed, step, id, tp)
					}
				}
			}
			holder.mu.Unlock()
		}
	}
}

func TestConsumerGroupHonoursItsOwnSessionAndHeartbeatConfigs(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"t": 4})
	h.c.SetConsumerGroupConfigs(func(groupID string, cfg ConsumerConfig) ConsumerConfig {
		if groupID == "g" {
			cfg.SessionTimeout, cfg.HeartbeatInterval = 60*time.Second, 7*time.Second
		}
		return cfg
	})
	a, r := h.join("a", "t")
	if r.HeartbeatInterval != 7*time.Second {
		t.Fatalf("heartbeat interval %v, want the group's 7s", r.HeartbeatInterval)
	}
	b, _ := h.join("b", "t")
	h.beat(a)
	h.beat(b)
	// 50 s: past the broker's 45 s session timeout, within the group's 60 s.
	for range 5 {
		h.clock.advance(10 * time.Second)
		h.beat(a)
		h.c.Tick()
	}
	if r := h.beat(b); r.Err != nil {
		t.Fatalf("b expired at 50 s under a 60 s group session timeout: %v", r.Err)
	}
	for range 7 {
		h.clock.advance(10 * time.Second)
		h.beat(a)
		h.c.Tick()
	}
	if r := h.beat(b); r.Err != kerr.UnknownMemberID {
		t.Fatalf("b after 70 s silent: %v, want UNKNOWN_MEMBER_ID", r.Err)
	}
}
