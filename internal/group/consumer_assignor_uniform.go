package group

import (
	"cmp"
	"slices"
)

// UniformAssignor is Kafka's "uniform" server-side assignor (the
// default): partitions are spread so that members differ by at most one
// partition where their subscriptions allow it, and as few partitions as
// possible move away from their current owner.
//
// It keeps every partition whose current owner still subscribes to its
// topic, gives the others to the least-loaded subscriber, then moves
// partitions from the most- to the least-loaded eligible member until no
// move narrows the spread. With identical subscriptions this reaches
// the minimum number of moves; with differing ones it is balanced as far
// as single moves can make it (Kafka's heterogeneous path optimises the
// same goal with a different search, so the exact placement may differ).
type UniformAssignor struct{}

// Name is "uniform".
func (UniformAssignor) Name() string { return "uniform" }

// Assign computes the sticky, balanced assignment.
func (UniformAssignor) Assign(members []AssignMember, partitions map[string]int32, current map[string]MemberAssignment) map[string]MemberAssignment {
	ms := sortedMembers(members, partitions)
	subscribed := map[string]map[string]bool{} // member -> topic set
	subscribers := map[string][]string{}       // topic -> member ids, ascending
	for _, m := range ms {
		set := map[string]bool{}
		for _, t := range m.Topics {
			set[t] = true
			subscribers[t] = append(subscribers[t], m.ID)
		}
		subscribed[m.ID] = set
	}
	owner := map[TopicPartition]string{}
	owned := map[string][]TopicPartition{}
	// Keep current ownership that is still valid, in member id order so
	// a partition claimed twice (never in a consistent input) resolves
	// the same way every time.
	for _, m := range ms {
		for topic, ps := range current[m.ID] {
			if !subscribed[m.ID][topic] {
				continue
			}
			for _, p := range ps {
				tp := TopicPartition{topic, p}
				if p < 0 || p >= partitions[topic] || owner[tp] != "" {
					continue
				}
				owner[tp] = m.ID
				owned[m.ID] = append(owned[m.ID], tp)
			}
		}
	}
	// A member keeps at most the ceiling of the fair share of what it can
	// be given; the excess goes back to the pool first, which is what lets
	// a new member receive partitions without a long chain of moves.
	topics := make([]string, 0, len(subscribers))
	for t := range subscribers {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	var unassigned []TopicPartition
	for _, t := range topics {
		for p := int32(0); p < partitions[t]; p++ {
			if tp := (TopicPartition{t, p}); owner[tp] == "" {
				unassigned = append(unassigned, tp)
			}
		}
	}
	for _, tp := range unassigned {
		best := leastLoaded(subscribers[tp.Topic], owned)
		owner[tp] = best
		owned[best] = append(owned[best], tp)
	}
	rebalance(ms, subscribers, owner, owned)
	return build(ms, owned)
}

// leastLoaded returns the candidate owning the fewest partitions, the
// smallest id among equals.
func leastLoaded(candidates []string, owned map[string][]TopicPartition) string {
	best := candidates[0]
	for _, id := range candidates[1:] {
		if len(owned[id]) < len(owned[best]) {
			best = id
		}
	}
	return best
}

// rebalance moves partitions from heavily to lightly loaded members that
// subscribe to them, while some move narrows the spread by one.
func rebalance(ms []AssignMember, subscribers map[string][]string, owner map[TopicPartition]string, owned map[string][]TopicPartition) {
	for range len(owner) + 1 {
		// Members by load, heaviest first.
		order := make([]string, len(ms))
		for i, m := range ms {
			order[i] = m.ID
		}
		slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(len(owned[b]), len(owned[a])) })
		moved := false
		for _, from := range order {
			// The last partitions taken are the first given back.
			tps := owned[from]
			for i := len(tps) - 1; i >= 0 && !moved; i-- {
				tp := tps[i]
				to := leastLoaded(subscribers[tp.Topic], owned)
				if len(owned[to])+1 < len(owned[from]) {
					owned[from] = slices.Delete(tps, i, i+1)
					owned[to] = append(owned[to], tp)
					owner[tp] = to
					moved = true
				}
			}
			if moved {
				break
			}
		}
		if !moved {
			return
		}
	}
}
