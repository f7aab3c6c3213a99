package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Sync handles a SyncGroup. The returned channel receives the answer: at
// once in a stable group or on error, otherwise when the leader's
// assignment arrives (or a new rebalance starts).
func (c *Coordinator) Sync(req SyncRequest) <-chan SyncResult {
	ch := make(chan SyncResult, 1)
	if err := c.unavailable(req.GroupID); err != nil {
		ch <- SyncResult{Err: err}
		return ch
	}
	g := c.group(req.GroupID, false)
	if g == nil {
		ch <- SyncResult{Err: kerr.UnknownMemberID}
		return ch
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// A metadata write lost since is reverted first, so the request
	// is checked against the group as it is now.
	g.catchUp()
	now := c.clock.Now()
	if g.state == Empty {
		ch <- SyncResult{Err: kerr.UnknownMemberID}
		return ch
	}
	if err := g.validateSync(req); err != nil {
		ch <- SyncResult{Err: err}
		return ch
	}
	m := g.members[req.MemberID]
	switch g.state {
	case PreparingRebalance:
		ch <- SyncResult{Err: kerr.RebalanceInProgress}
	case CompletingRebalance:
		m.respondSync(SyncResult{Err: kerr.RebalanceInProgress})
		m.sync = ch
		g.removePendingSync(m.id)
		if m.id == g.leader {
			g.applyAssignment(req.Assignments, now)
		}
	case Stable:
		g.removePendingSync(m.id)
		r := g.syncResult(m)
		r.Wait = g.metadataDurable()
		ch <- r
	}
	return ch
}

func (g *classicGroup) validateSync(req SyncRequest) *kerr.Error {
	if g.state == Dead {
		return kerr.CoordinatorNotAvailable
	}
	if err := g.validateMember(req.MemberID, req.InstanceID); err != nil {
		return err
	}
	if req.Generation != g.generation {
		return kerr.IllegalGeneration
	}
	if (req.ProtocolType != nil && *req.ProtocolType != g.protocolType) ||
		(req.Protocol != nil && *req.Protocol != g.protocol) {
		return kerr.InconsistentGroupProtocol
	}
	return nil
}

func (g *classicGroup) removePendingSync(id string) {
	delete(g.pendingSync, id)
	if len(g.pendingSync) == 0 {
		g.syncDeadline = time.Time{}
	}
}

func (g *classicGroup) syncResult(m *member) SyncResult {
	return SyncResult{ProtocolType: g.protocolTypePtr(), Protocol: g.protocolPtr(), Assignment: m.assignment}
}

// applyAssignment stores the leader's assignment (members it left out get
// an empty one), persists the group and answers every waiting SyncGroup;
// the answers carry the write's Durable, to be waited on before they go
// out. If the write fails, the members are told and must rejoin.
func (g *classicGroup) applyAssignment(assignments []Assignment, now time.Time) {
	for _, m := range g.members {
		m.assignment = []byte{}
	}
	for _, a := range assignments {
		if m, ok := g.members[a.MemberID]; ok {
			m.assignment = a.Assignment
		}
	}
	prev := g.state
	g.transition(Stable, now)
	wait, err := g.persistGroup()
	if err != nil {
		g.state = prev
		for _, m := range g.members {
			m.assignment = nil
			g.propagateSync(m, SyncResult{Err: kerr.CoordinatorNotAvailable}, now)
		}
		g.maybePrepareRebalanceOrCompleteJoin(now)
		return
	}
	for _, m := range g.allMembers() {
		r := g.syncResult(m)
		r.Wait = wait
		g.propagateSync(m, r, now)
	}
}
