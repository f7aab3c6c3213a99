package group

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestConsumerGroupRecordsRandomized drives a consumer group through
// random joins, heartbeats, leaves, static members leaving and coming
// back, subscription changes, topics growing and sessions lapsing; after
// every step a coordinator loaded from the records written so far must
// describe the group exactly as the one that wrote them.
func TestConsumerGroupRecordsRandomized(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			h, store := restoredHarness(t, fakeTopics{"t": 4, "u": 3})
			clients := map[string]*cclient{}
			var ids []string
			next := 0
			pick := func() *cclient {
				if len(ids) == 0 {
					return nil
				}
				return clients[ids[rng.IntN(len(ids))]]
			}
			drop := func(id string) {
				delete(clients, id)
				for i, x := range ids {
					if x == id {
						ids = append(ids[:i], ids[i+1:]...)
						break
					}
				}
			}
			subs := [][]string{{"t"}, {"u"}, {"t", "u"}}
			for step := range 150 {
				switch op := rng.IntN(10); {
				case op < 2 || len(ids) == 0:
					next++
					id := fmt.Sprintf("m%d", next)
					cl := &cclient{id: id, owned: MemberAssignment{}}
					req := ConsumerHeartbeat{GroupID: "g", MemberID: id, SubscribedTopics: subs[rng.IntN(len(subs))],
						RebalanceTimeout: time.Minute, OwnedSent: true, Topics: h.topics, ClientID: "c" + id, ClientHost: "/h"}
					if rng.IntN(3) == 0 {
						req.InstanceID = strp(fmt.Sprintf("i%d", rng.IntN(3)))
					}
					if rng.IntN(4) == 0 {
						req.ServerAssignor = strp([]string{"uniform", "range"}[rng.IntN(2)])
					}
					if r := h.c.ConsumerHeartbeat(req); r.Err == nil {
						cl.apply(r)
						clients[id] = cl
						ids = append(ids, id)
					}
				case op < 6:
					cl := pick()
					r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch,
						Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: h.topics, ClientID: "c" + cl.id, ClientHost: "/h"})
					if r.Err != nil {
						drop(cl.id)
					}
					cl.apply(r)
				case op == 6:
					cl := pick()
					req := ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: -1, Topics: h.topics}
					if rng.IntN(2) == 0 {
						req.MemberEpoch = -2
					}
					h.c.ConsumerHeartbeat(req)
					drop(cl.id)
				case op == 7:
					cl := pick()
					r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch,
						SubscribedTopics: subs[rng.IntN(len(subs))], Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: h.topics,
						ClientID: "c" + cl.id, ClientHost: "/h"})
					if r.Err != nil {
						drop(cl.id)
					}
					cl.apply(r)
				case op == 8:
					h.clock.advance(time.Duration(rng.IntN(30)) * time.Second)
					h.c.Tick()
				default:
					if rng.IntN(4) == 0 {
						h.topics["u"]++
					}
				}
				h.checkExclusive()
				c2 := h.restart(store)
				want := h.c.DescribeConsumerGroups([]string{"g"})
				got := c2.DescribeConsumerGroups([]string{"g"})
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("step %d: restored group differs:\nwant %+v\n got %+v", step, want, got)
				}
				if w, g := consumerState(h.c), consumerState(c2); !reflect.DeepEqual(w, g) {
					t.Fatalf("step %d: restored state differs:\nwant %+v\n got %+v", step, w, g)
				}
			}
		})
	}
}

// restoredMember is what of a member survives a restart: all but its
// timers and compiled regex.
type restoredMember struct {
	ID, ClientID, ClientHost, Regex, ServerAssignor string
	InstanceID, RackID                              *string
	Epoch, PrevEpoch                                int32
	State                                           memberState
	Left                                            bool
	Topics                                          []string
	Assigned, Revoking                              MemberAssignment
	RebalanceTimeout                                time.Duration
}

type restoredGroup struct {
	Epoch, AssignmentEpoch int32
	Members                map[string]restoredMember
	Target                 map[string]MemberAssignment
	Static                 map[string]string
}

func consumerState(c *Coordinator) *restoredGroup {
	holder := c.group("g", false)
	if holder == nil {
		return nil
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	g := c.consumerGroupOf(holder, false)
	if g == nil {
		return nil
	}
	out := &restoredGroup{Epoch: g.epoch, AssignmentEpoch: g.assignmentEpoch, Members: map[string]restoredMember{},
		Target: map[string]MemberAssignment{}, Static: g.static}
	norm := func(ma MemberAssignment) MemberAssignment {
		o := MemberAssignment{}
		for t, ps := range ma {
			if len(ps) > 0 {
				o[t] = ps
			}
		}
		return o
	}
	for id, ma := range g.target {
		if n := norm(ma); len(n) > 0 {
			out.Target[id] = n
		}
	}
	for id, m := range g.members {
		topics := m.topics
		if len(topics) == 0 {
			topics = nil
		}
		out.Members[id] = restoredMember{ID: m.id, ClientID: m.clientID, ClientHost: m.clientHost, Regex: m.regex,
			ServerAssignor: m.serverAssignor, InstanceID: m.instanceID, RackID: m.rackID, Epoch: m.epoch, PrevEpoch: m.prevEpoch,
			State: m.state, Left: m.left, Topics: topics, Assigned: norm(m.assigned), Revoking: norm(m.revoking),
			RebalanceTimeout: m.rebalanceTimeout}
	}
	return out
}

// benchmarkRebalance: 50 members join a group over 500 partitions and
// heartbeat until every member is at the group's epoch and stable.
func benchmarkRebalance(b *testing.B, store Store) {
	topics := fakeTopics{"t": 500}
	for range b.N {
		clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		c := New(testConfig(), Options{Clock: clock, Store: store, Topics: topics})
		var cls []*cclient
		beat := func(cl *cclient) {
			cl.apply(c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch,
				Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: topics}))
		}
		for i := range 50 {
			cl := &cclient{id: fmt.Sprint("m", i), owned: MemberAssignment{}}
			cl.apply(c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, SubscribedTopics: []string{"t"},
				OwnedSent: true, Topics: topics}))
			cls = append(cls, cl)
		}
		for range 10 {
			for _, cl := range cls {
				beat(cl)
			}
		}
		if d := c.DescribeConsumerGroups([]string{"g"})[0]; d.State != "Stable" {
			b.Fatalf("not stable: %s", d.State)
		}
	}
}

func BenchmarkConsumerRebalanceInMemory(b *testing.B)  { benchmarkRebalance(b, nil) }
func BenchmarkConsumerRebalancePersisted(b *testing.B) { benchmarkRebalance(b, discardStore{}) }

type discardStore struct{}

func (discardStore) Append(string, []Record) (Durable, error) { return noWait, nil }
