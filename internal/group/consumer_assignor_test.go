package group

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// checkAssignment verifies that every subscribed partition is assigned
// exactly once, and only to a subscriber.
func checkAssignment(t *testing.T, members []AssignMember, partitions map[string]int32, got map[string]MemberAssignment) {
	t.Helper()
	subscribed := map[string]map[string]bool{}
	wanted := map[TopicPartition]bool{}
	for _, m := range members {
		subscribed[m.ID] = map[string]bool{}
		for _, topic := range m.Topics {
			subscribed[m.ID][topic] = true
			for p := int32(0); p < partitions[topic]; p++ {
				wanted[TopicPartition{topic, p}] = true
			}
		}
	}
	seen := map[TopicPartition]string{}
	for id, ma := range got {
		for topic, ps := range ma {
			if !subscribed[id][topic] {
				t.Fatalf("member %s got %s without subscribing", id, topic)
			}
			for _, p := range ps {
				tp := TopicPartition{topic, p}
				if prev, dup := seen[tp]; dup {
					t.Fatalf("%v assigned to %s and %s", tp, prev, id)
				}
				if !wanted[tp] {
					t.Fatalf("%v does not exist", tp)
				}
				seen[tp] = id
			}
		}
	}
	if len(seen) != len(wanted) {
		t.Fatalf("assigned %d of %d partitions", len(seen), len(wanted))
	}
}

func count(ma MemberAssignment) int {
	n := 0
	for _, ps := range ma {
		n += len(ps)
	}
	return n
}

func randomInput(r *rand.Rand, homogeneous bool) ([]AssignMember, map[string]int32) {
	partitions := map[string]int32{}
	var topics []string
	for i := range 1 + r.IntN(4) {
		name := fmt.Sprintf("t%d", i)
		partitions[name] = int32(r.IntN(9))
		topics = append(topics, name)
	}
	var members []AssignMember
	for i := range 1 + r.IntN(6) {
		m := AssignMember{ID: fmt.Sprintf("m%d", i)}
		for _, t := range topics {
			if homogeneous || r.IntN(2) == 0 {
				m.Topics = append(m.Topics, t)
			}
		}
		members = append(members, m)
	}
	return members, partitions
}

func TestAssignorsCoverEveryPartitionOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, a := range assignors {
		for range 2000 {
			members, partitions := randomInput(r, r.IntN(2) == 0)
			first := a.Assign(members, partitions, nil)
			checkAssignment(t, members, partitions, first)
			again := a.Assign(members, partitions, first)
			checkAssignment(t, members, partitions, again)
			if !reflect.DeepEqual(first, again) {
				t.Fatalf("%s: not stable when nothing changes:\n%v\n%v", a.Name(), first, again)
			}
		}
	}
}

func TestUniformBalancedAndSticky(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := UniformAssignor{}
	for range 2000 {
		members, partitions := randomInput(r, true)
		prev := a.Assign(members, partitions, nil)
		// Add or remove one member and check balance and movement.
		next := members
		if r.IntN(2) == 0 && len(members) > 1 {
			next = members[:len(members)-1]
		} else {
			next = append(append([]AssignMember(nil), members...), AssignMember{ID: "new", Topics: members[0].Topics})
		}
		got := a.Assign(next, partitions, prev)
		checkAssignment(t, next, partitions, got)
		lo, hi := 1<<30, -1
		for _, m := range next {
			n := count(got[m.ID])
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi-lo > 1 {
			t.Fatalf("unbalanced: %v", got)
		}
		// A member that stays keeps min(previous, fair floor) partitions.
		total := 0
		for _, m := range members {
			total += count(prev[m.ID])
		}
		floor := total / len(next)
		for _, m := range next {
			kept := 0
			for topic, ps := range got[m.ID] {
				for _, p := range ps {
					for _, q := range prev[m.ID][topic] {
						if p == q {
							kept++
						}
					}
				}
			}
			if want := min(count(prev[m.ID]), floor); kept < want {
				t.Fatalf("member %s kept %d, want at least %d: %v -> %v", m.ID, kept, want, prev, got)
			}
		}
	}
}

func TestRangeMatchesKafka(t *testing.T) {
	members := []AssignMember{{ID: "b", Topics: []string{"t"}}, {ID: "a", Topics: []string{"t", "u"}}, {ID: "c", Topics: []string{"t"}}}
	got := RangeAssignor{}.Assign(members, map[string]int32{"t": 7, "u": 2}, nil)
	want := map[string]MemberAssignment{
		"a": {"t": {0, 1, 2}, "u": {0, 1}},
		"b": {"t": {3, 4}},
		"c": {"t": {5, 6}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}
