package group

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// simClient is a consumer as the randomized test drives it.
type simClient struct {
	id         string
	generation int32
	join       <-chan JoinResult
	sync       <-chan SyncResult
	joined     *JoinResult // last successful join, until synced
}

const simPartitions = 12

// splitAssignment is what a leader computes: partitions dealt round-robin
// over the members, encoded as the consumer protocol's assignment.
func splitAssignment(members []JoinedMember) []Assignment {
	out := make([]Assignment, len(members))
	parts := make([][]int32, len(members))
	for p := int32(0); p < simPartitions; p++ {
		i := int(p) % len(members)
		parts[i] = append(parts[i], p)
	}
	for i, m := range members {
		a := kmsg.NewConsumerMemberAssignment()
		a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "t", Partitions: parts[i]}}
		out[i] = Assignment{MemberID: m.MemberID, Assignment: a.AppendTo(nil)}
	}
	return out
}

func decodeParts(t *testing.T, b []byte) []int32 {
	var a kmsg.ConsumerMemberAssignment
	if len(b) == 0 {
		return nil
	}
	if err := a.ReadFrom(b); err != nil {
		t.Fatalf("assignment does not decode: %v", err)
	}
	var out []int32
	for _, tp := range a.Topics {
		out = append(out, tp.Partitions...)
	}
	return out
}

// TestRandomizedRebalances drives random joins, syncs, heartbeats, leaves
// and clock moves through one group and checks the invariants after every
// step.
func TestRandomizedRebalances(t *testing.T) {
	seeds := 60
	steps := 600
	if testing.Short() {
		seeds = 10
	}
	for seed := 0; seed < seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runRandom(t, uint64(seed), steps) })
	}
}

func runRandom(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	cfg := testConfig()
	cfg.MaxSize = 6
	h := newHarness(t, cfg)
	clients := make([]*simClient, 8)
	for i := range clients {
		clients[i] = &simClient{}
	}
	// leaderSent[generation][member] is what the leader assigned.
	leaderSent := map[int32]map[string][]byte{}
	var lastGen int32
	completed := 0

	for step := 0; step < steps; step++ {
		c := clients[rng.IntN(len(clients))]
		switch op := rng.IntN(10); {
		case op < 3 && c.join == nil && c.sync == nil:
			req := joinReq("g", c.id)
			if rng.IntN(8) == 0 {
				req.Protocols = consumerProtocols("t", "extra") // a subscription change
			}
			c.join = h.c.Join(req)
		case op < 5 && c.joined != nil && c.sync == nil:
			req := SyncRequest{GroupID: "g", MemberID: c.id, Generation: c.joined.Generation}
			if c.joined.Leader == c.id && len(c.joined.Members) > 0 {
				req.Assignments = splitAssignment(c.joined.Members)
				sent := map[string][]byte{}
				for _, a := range req.Assignments {
					sent[a.MemberID] = a.Assignment
				}
				leaderSent[c.joined.Generation] = sent
			}
			c.sync = h.c.Sync(req)
		case op < 7 && c.id != "":
			h.c.Heartbeat("g", c.id, nil, c.generation)
		case op == 7 && c.id != "" && rng.IntN(4) == 0:
			h.c.Leave("g", []MemberIdentity{{MemberID: c.id}})
			*c = simClient{}
		default:
			h.advance(time.Duration(rng.IntN(4000)) * time.Millisecond)
		}
		// Collect answers.
		for _, cl := range clients {
			select {
			case r := <-cl.join:
				cl.join = nil
				switch {
				case r.Err == nil:
					cl.id, cl.generation = r.MemberID, r.Generation
					cl.joined = &r
				case r.MemberID != "" && r.Err.Code == 79: // MEMBER_ID_REQUIRED
					cl.id = r.MemberID
				default:
					*cl = simClient{}
				}
			default:
			}
			select {
			case r := <-cl.sync:
				gen := cl.joined.Generation
				cl.sync, cl.joined = nil, nil
				if r.Err != nil {
					continue
				}
				completed++
				if want, ok := leaderSent[gen]; ok && string(want[cl.id]) != string(r.Assignment) {
					t.Fatalf("step %d: member %s got %x, leader sent %x", step, cl.id, r.Assignment, want[cl.id])
				}
			default:
			}
		}
		checkInvariants(t, h, step, &lastGen, leaderSent)
	}
	if completed == 0 {
		t.Logf("seed %d: no sync completed", seed)
	}
}

func checkInvariants(t *testing.T, h *harness, step int, lastGen *int32, leaderSent map[int32]map[string][]byte) {
	g := h.c.group("g", false)
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.generation < *lastGen {
		t.Fatalf("step %d: generation went back from %d to %d", step, *lastGen, g.generation)
	}
	*lastGen = g.generation
	// Members that have not rejoined yet may exceed group.max.size while
	// a join phase runs; they are dropped when it completes.
	if (g.state == Stable || g.state == CompletingRebalance) && len(g.members) > h.c.cfg.MaxSize {
		t.Fatalf("step %d: %d members over group.max.size", step, len(g.members))
	}
	if g.leader != "" {
		if _, ok := g.members[g.leader]; !ok {
			t.Fatalf("step %d: leader %s is not a member", step, g.leader)
		}
	}
	if g.state != Stable {
		return
	}
	sent := leaderSent[g.generation]
	owner := map[int32]string{}
	for id, m := range g.members {
		if string(m.assignment) != string(sent[id]) {
			t.Fatalf("step %d: stable member %s holds %x, leader sent %x", step, id, m.assignment, sent[id])
		}
		for _, p := range decodeParts(t, m.assignment) {
			if o, dup := owner[p]; dup {
				t.Fatalf("step %d: partition %d owned by %s and %s", step, p, o, id)
			}
			owner[p] = id
		}
	}
}
