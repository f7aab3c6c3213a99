package group

import "github.com/twmb/franz-go/pkg/kerr"

// Heartbeat keeps a member alive and tells it whether to rejoin
// (REBALANCE_IN_PROGRESS).
func (c *Coordinator) Heartbeat(groupID, memberID string, instanceID *string, generation int32) *kerr.Error {
	if err := c.unavailable(groupID); err != nil {
		return err
	}
	g := c.group(groupID, false)
	if g == nil {
		return kerr.UnknownMemberID
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// A metadata write lost since is reverted first, so the request
	// is checked against the group as it is now.
	g.catchUp()
	if g.state == Dead {
		return kerr.CoordinatorNotAvailable
	}
	if err := g.validateMember(memberID, instanceID); err != nil {
		return err
	}
	if generation != g.generation {
		return kerr.IllegalGeneration
	}
	m := g.members[memberID]
	m.deadline = c.clock.Now().Add(m.sessionTimeout)
	g.armMember(m)
	switch g.state {
	case Empty:
		return kerr.UnknownMemberID
	case PreparingRebalance:
		return kerr.RebalanceInProgress
	}
	return nil
}
