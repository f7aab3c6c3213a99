package group

import "github.com/twmb/franz-go/pkg/kerr"

// Leave removes members (LeaveGroup; v3+ names several, by member id or
// by group.instance.id). The first result is for the whole request; the
// slice holds one error (nil for success) per member.
func (c *Coordinator) Leave(groupID string, members []MemberIdentity) (*kerr.Error, []*kerr.Error) {
	if err := c.unavailable(groupID); err != nil {
		return err, nil
	}
	g := c.group(groupID, false)
	if g == nil {
		// Kafka 4.4 answers each member of a group it does not know UNKNOWN_MEMBER_ID, the
		// request itself NONE (LeaveGroup v0-v2 take their one member's error as theirs).
		errs := make([]*kerr.Error, len(members))
		for i := range errs {
			errs[i] = kerr.UnknownMemberID
		}
		return nil, errs
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// A metadata write lost since is reverted first, so the request
	// is checked against the group as it is now.
	g.catchUp()
	if g.state == Dead {
		return kerr.CoordinatorNotAvailable, nil
	}
	now := c.clock.Now()
	errs := make([]*kerr.Error, len(members))
	left := false
	for i, id := range members {
		switch {
		case id.MemberID == "":
			if id.InstanceID == nil {
				errs[i] = kerr.UnknownMemberID
				continue
			}
			mid, ok := g.static[*id.InstanceID]
			if !ok {
				errs[i] = kerr.UnknownMemberID
				continue
			}
			g.leaveOne(g.members[mid])
			left = true
		case g.isPending(id.MemberID):
			delete(g.pending, id.MemberID)
			g.cancelTimer(groupTimer{heartbeatTimer, id.MemberID})
			left = true
		default:
			if err := g.validateMember(id.MemberID, id.InstanceID); err != nil {
				errs[i] = err
				continue
			}
			g.leaveOne(g.members[id.MemberID])
			left = true
		}
	}
	if left {
		switch g.state {
		case Stable, CompletingRebalance:
			g.maybePrepareRebalanceOrCompleteJoin(now)
		case PreparingRebalance:
			g.maybeCompleteJoin(now)
		}
	}
	return nil, errs
}

func (g *classicGroup) isPending(id string) bool {
	_, ok := g.pending[id]
	return ok
}

func (g *classicGroup) leaveOne(m *member) {
	m.respondJoin(JoinResult{Err: kerr.UnknownMemberID, Generation: -1})
	m.respondSync(SyncResult{Err: kerr.UnknownMemberID})
	g.remove(m.id)
}
