package group

import (
	"cmp"
	"slices"
)

// AssignMember is a consumer-group member as a server-side assignor sees
// it: its id and the topics it subscribes to (regexes already resolved).
type AssignMember struct {
	ID     string
	Topics []string
}

// MemberAssignment is the partitions of each topic given to one member,
// partitions ascending.
type MemberAssignment map[string][]int32

// Assignor computes a consumer group's target assignment from its
// members, the partition count of each existing topic, and the current
// target (for stickiness). It is a pure function: same input, same
// output, and the input is not modified.
type Assignor interface {
	Name() string
	Assign(members []AssignMember, partitions map[string]int32, current map[string]MemberAssignment) map[string]MemberAssignment
}

// assignors are the server-side assignors, by name, the first the
// default (group.consumer.assignors: uniform, range).
var assignors = []Assignor{UniformAssignor{}, RangeAssignor{}}

// assignorNamed returns the assignor called name, or nil.
func assignorNamed(name string) Assignor {
	for _, a := range assignors {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// sortedMembers returns members ordered by id, each with its topics
// sorted and deduplicated, and only topics that exist.
func sortedMembers(members []AssignMember, partitions map[string]int32) []AssignMember {
	out := make([]AssignMember, 0, len(members))
	for _, m := range members {
		ts := make([]string, 0, len(m.Topics))
		for _, t := range m.Topics {
			if partitions[t] > 0 {
				ts = append(ts, t)
			}
		}
		slices.Sort(ts)
		out = append(out, AssignMember{ID: m.ID, Topics: slices.Compact(ts)})
	}
	slices.SortFunc(out, func(a, b AssignMember) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// build turns per-member partition lists into MemberAssignments; every
// member gets an entry, empty when it has nothing.
func build(members []AssignMember, owned map[string][]TopicPartition) map[string]MemberAssignment {
	out := make(map[string]MemberAssignment, len(members))
	for _, m := range members {
		ma := MemberAssignment{}
		tps := owned[m.ID]
		slices.SortFunc(tps, compareTP)
		for _, tp := range tps {
			ma[tp.Topic] = append(ma[tp.Topic], tp.Partition)
		}
		out[m.ID] = ma
	}
	return out
}
