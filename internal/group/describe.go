package group

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Describe reports groups (DescribeGroups). An unknown group, and one of
// the consumer protocol, is reported Dead with GROUP_ID_NOT_FOUND and
// Kafka's message; callers answering DescribeGroups before v6 clear that
// error, as Kafka does.
func (c *Coordinator) Describe(ids []string) []Description {
	out := make([]Description, len(ids))
	for i, id := range ids {
		d := &out[i]
		d.GroupID = id
		if d.Err = c.unavailable(id); d.Err != nil {
			continue
		}
		g := c.group(id, false)
		if g == nil {
			d.State, d.Err, d.ErrMessage = Dead.String(), kerr.GroupIDNotFound, "Group "+id+" not found."
			continue
		}
		g.mu.Lock()
		g.catchUp()
		if (c.consumerGroupOf(g, false) != nil || c.isShareGroup(g)) && len(g.members) == 0 {
			// A consumer-protocol group is not a classic one: Kafka's
			// answer, which callers before v6 reduce to a Dead group.
			d.State, d.Err = Dead.String(), kerr.GroupIDNotFound
			d.ErrMessage = "Group " + id + " is not a classic group."
			g.mu.Unlock()
			continue
		}
		d.State, d.ProtocolType = g.state.String(), g.protocolType
		if g.state == Dead {
			d.Err, d.ErrMessage = kerr.GroupIDNotFound, "Group "+id+" not found."
		}
		stable := g.state == Stable
		if stable {
			d.Protocol = g.protocol
		}
		for _, m := range g.allMembers() {
			// Outside Stable, Kafka describes the members without their
			// metadata but with the assignment they hold: in a rebalance,
			// the one of the generation before until SyncGroup replaces it.
			md := MemberDescription{MemberID: m.id, InstanceID: m.instanceID, ClientID: m.clientID, ClientHost: m.clientHost,
				Metadata: []byte{}, Assignment: []byte{}}
			if stable {
				md.Metadata = m.metadataFor(g.protocol)
			}
			if m.assignment != nil {
				md.Assignment = m.assignment
			}
			d.Members = append(d.Members, md)
		}
		g.mu.Unlock()
	}
	return out
}

// List reports every group whose state is in states and whose type is in
// types (ListGroups); empty filters match all.
func (c *Coordinator) List(states, types []string) []Listing {
	var out []Listing
	for _, g := range c.snapshot() {
		g.mu.Lock()
		g.catchUp()
		l := Listing{GroupID: g.id, ProtocolType: g.protocolType, State: g.state.String(), Type: "classic"}
		// A consumer or share group is listed as its durable records make
		// it; one whose first records are not durable yet is not listed.
		uncommitted := false
		if c.shareGroupOf(g, false) != nil {
			if sg := g.durableShare; sg != nil {
				l = Listing{GroupID: g.id, ProtocolType: "share", State: sg.stateName(), Type: "share"}
			} else {
				uncommitted = true
			}
		} else if cg := c.consumerGroupOf(g, false); cg != nil && len(g.members) == 0 {
			if dg := g.committedConsumerGroup(); dg != nil {
				l = Listing{GroupID: g.id, ProtocolType: "consumer", State: dg.stateName(), Type: "consumer"}
			} else {
				uncommitted = true
			}
		}
		dead := g.state == Dead || uncommitted
		g.mu.Unlock()
		if dead || (len(states) > 0 && !containsFold(states, l.State)) || (len(types) > 0 && !containsFold(types, l.Type)) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return equalFold(x, s) })
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
