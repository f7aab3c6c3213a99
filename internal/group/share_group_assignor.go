package group

import "slices"

// shareAssignMember is one member as the share assignor sees it: its
// subscribed topics (existing ones) and its current target.
type shareAssignMember struct {
	ID      string
	Topics  []string
	Current MemberAssignment
}

// assignShare is the server-side "simple" assignor of share groups
// (group.share.assignors), by the rules of Kafka 4.4's SimpleAssignor:
// balance first, then stickiness. Unlike a consumer group's, a
// partition may go to several members: with more members than
// partitions each partition is shared by ceil(members/partitions) of
// them, and every member gets a part. When every member subscribes to the
// same topics (Kafka's homogeneous case) the partitions of all of them
// are balanced together; otherwise each topic is balanced among its own
// subscribers (Kafka's heterogeneous builder, topic by topic). Only the
// partitions of assignable are assigned (those whose share state is
// initialized); nil assigns every partition.
func assignShare(members []shareAssignMember, counts map[string]int32, assignable MemberAssignment) map[string]MemberAssignment {
	out := make(map[string]MemberAssignment, len(members))
	for _, m := range members {
		out[m.ID] = MemberAssignment{}
	}
	if len(members) == 0 {
		return out
	}
	slices.SortFunc(members, func(a, b shareAssignMember) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	homogeneous := true
	for _, m := range members[1:] {
		if !slices.Equal(m.Topics, members[0].Topics) {
			homogeneous = false
			break
		}
	}
	if homogeneous {
		balanceShare(members, members[0].Topics, counts, assignable, out)
		return out
	}
	topics := map[string][]shareAssignMember{}
	for _, m := range members {
		for _, t := range m.Topics {
			topics[t] = append(topics[t], m)
		}
	}
	names := make([]string, 0, len(topics))
	for t := range topics {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		balanceShare(topics[t], []string{t}, counts, assignable, out)
	}
	return out
}

// balanceShare assigns the partitions of topics among members (sorted by
// id) into out. Each partition is wanted by `sharing` members, and the
// sharing*partitions assignments are spread so that no two members'
// counts differ by more than one. A member keeps what it had, up to its
// count and as long as the partition is not over-shared; what is left
// goes, partition by partition, to the members furthest below their
// count.
func balanceShare(members []shareAssignMember, topics []string, counts map[string]int32, assignable MemberAssignment, out map[string]MemberAssignment) {
	var parts []TopicPartition
	for _, t := range topics {
		for p := int32(0); p < counts[t]; p++ {
			if tp := (TopicPartition{t, p}); assignable == nil || hasPartition(assignable, tp) {
				parts = append(parts, tp)
			}
		}
	}
	n, np := len(members), len(parts)
	if n == 0 || np == 0 {
		return
	}
	sharing := (n + np - 1) / np
	total := sharing * np
	want := make([]int, n)
	for i := range want {
		// ceil(total*(i+1)/n) - ceil(total*i/n): the counts sum to total
		// and differ by at most one.
		want[i] = (total*(i+1)+n-1)/n - (total*i+n-1)/n
	}
	holders := make(map[TopicPartition]int, np)
	have := make([]int, n)
	held := make([]map[TopicPartition]bool, n)
	in := make(map[TopicPartition]bool, np)
	for _, tp := range parts {
		in[tp] = true
	}
	for i, m := range members {
		held[i] = map[TopicPartition]bool{}
		for _, tp := range partitionsOf(m.Current) {
			if !in[tp] || have[i] >= want[i] || holders[tp] >= sharing {
				continue
			}
			held[i][tp] = true
			holders[tp]++
			have[i]++
		}
	}
	for _, tp := range parts {
		for holders[tp] < sharing {
			best := -1
			for i := range members {
				if held[i][tp] || have[i] >= want[i] {
					continue
				}
				if best < 0 || want[i]-have[i] > want[best]-have[best] {
					best = i
				}
			}
			if best < 0 {
				// Only members that hold it have room left: the least
				// loaded other member takes it, one over its count.
				for i := range members {
					if !held[i][tp] && (best < 0 || have[i] < have[best]) {
						best = i
					}
				}
			}
			if best < 0 {
				break
			}
			held[best][tp] = true
			holders[tp]++
			have[best]++
		}
	}
	for i, m := range members {
		for tp := range held[i] {
			addPartition(out[m.ID], tp)
		}
	}
}
