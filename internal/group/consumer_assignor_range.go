package group

// RangeAssignor is Kafka's "range" server-side assignor: topic by topic,
// the subscribers (ordered by member id) get consecutive ranges of
// partitions, the first (partitions mod subscribers) one more than the
// rest. Topics with the same partition count and the same subscribers
// are thereby co-partitioned.
type RangeAssignor struct{}

// Name is "range".
func (RangeAssignor) Name() string { return "range" }

// Assign computes the range assignment; the current one is not needed,
// as the result depends only on members and partition counts.
func (RangeAssignor) Assign(members []AssignMember, partitions map[string]int32, _ map[string]MemberAssignment) map[string]MemberAssignment {
	ms := sortedMembers(members, partitions)
	subscribers := map[string][]string{}
	for _, m := range ms {
		for _, t := range m.Topics {
			subscribers[t] = append(subscribers[t], m.ID)
		}
	}
	owned := map[string][]TopicPartition{}
	for topic, subs := range subscribers {
		n := partitions[topic]
		per, extra := n/int32(len(subs)), n%int32(len(subs))
		next := int32(0)
		for i, id := range subs {
			count := per
			if int32(i) < extra {
				count++
			}
			for p := next; p < next+count; p++ {
				owned[id] = append(owned[id], TopicPartition{topic, p})
			}
			next += count
		}
	}
	return build(ms, owned)
}
