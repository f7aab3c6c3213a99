package group

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// ConsumerMemberDescription is a member as ConsumerGroupDescribe shows it.
type ConsumerMemberDescription struct {
	MemberID         string
	InstanceID       *string
	RackID           *string
	MemberEpoch      int32
	ClientID         string
	ClientHost       string
	SubscribedTopics []string
	SubscribedRegex  *string
	Assignment       MemberAssignment
	TargetAssignment MemberAssignment
}

// ConsumerGroupDescription is a group as ConsumerGroupDescribe shows it.
type ConsumerGroupDescription struct {
	Err             *kerr.Error
	ErrMessage      string
	GroupID         string
	State           string // Empty, Assigning, Reconciling, Stable
	Epoch           int32
	AssignmentEpoch int32
	Assignor        string
	Members         []ConsumerMemberDescription
}

// DescribeConsumerGroups describes consumer-protocol groups as their
// durable records make them; an unknown id, one whose first records are
// not durable yet, or one of a classic group with members, is
// GROUP_ID_NOT_FOUND.
func (c *Coordinator) DescribeConsumerGroups(ids []string) []ConsumerGroupDescription {
	out := make([]ConsumerGroupDescription, 0, len(ids))
	for _, id := range ids {
		d := ConsumerGroupDescription{GroupID: id, Err: kerr.GroupIDNotFound, ErrMessage: "Group " + id + " not found."}
		if err := c.unavailable(id); err != nil {
			d.Err, d.ErrMessage = err, ""
		} else if holder := c.group(id, false); holder != nil {
			holder.mu.Lock()
			if g := holder.committedConsumerGroup(); g != nil && len(holder.members) == 0 {
				d = g.describe()
			} else if holder.state != Dead && c.consumerGroupOf(holder, false) == nil {
				d.ErrMessage = "Group " + id + " is not a consumer group."
			}
			holder.mu.Unlock()
		}
		out = append(out, d)
	}
	return out
}

func (g *consumerGroup) describe() ConsumerGroupDescription {
	d := ConsumerGroupDescription{GroupID: g.id, State: g.stateName(), Epoch: g.epoch,
		AssignmentEpoch: g.assignmentEpoch, Assignor: g.assignor}
	for _, m := range g.members {
		md := ConsumerMemberDescription{MemberID: m.id, InstanceID: m.instanceID, RackID: m.rackID,
			MemberEpoch: m.epoch, ClientID: m.clientID, ClientHost: m.clientHost,
			SubscribedTopics: slices.Clone(m.topics), Assignment: cloneAssignment(m.assigned),
			TargetAssignment: cloneAssignment(g.target[m.id])}
		if m.regex != "" {
			re := m.regex
			md.SubscribedRegex = &re
		}
		d.Members = append(d.Members, md)
	}
	slices.SortFunc(d.Members, func(a, b ConsumerMemberDescription) int {
		switch {
		case a.MemberID < b.MemberID:
			return -1
		case a.MemberID > b.MemberID:
			return 1
		}
		return 0
	})
	return d
}

// stateName is the group state as Kafka names it.
func (g *consumerGroup) stateName() string {
	switch {
	case len(g.members) == 0:
		return "Empty"
	case g.assignmentEpoch != g.epoch:
		return "Assigning"
	}
	for _, m := range g.members {
		if m.epoch != g.assignmentEpoch || m.state != memberStable {
			return "Reconciling"
		}
	}
	return "Stable"
}
