package group

import "github.com/twmb/franz-go/pkg/kerr"

// CommitTransactionalOffsetsV6 is CommitTransactionalOffsets with the
// errors TxnOffsetCommit v6 (KIP-1319) may answer, as Kafka's
// OffsetMetadataManager.validateTransactionalOffsetCommit: a generation
// for a group that does not exist is GROUP_ID_NOT_FOUND, and a consumer
// group member's stale epoch STALE_MEMBER_EPOCH (older versions answer
// ILLEGAL_GENERATION for both).
func (c *Coordinator) CommitTransactionalOffsetsV6(req TxnCommitRequest) (*kerr.Error, []*kerr.Error, Durable) {
	if req.GroupID != "" {
		g := c.group(req.GroupID, false)
		if g == nil && req.Generation >= 0 {
			return kerr.GroupIDNotFound, nil, noWait
		}
		if g != nil && g.staleTxnMemberEpoch(req) {
			return kerr.StaleMemberEpoch, nil, noWait
		}
	}
	return c.CommitTransactionalOffsets(req)
}

// staleTxnMemberEpoch: the group is an active consumer group and the
// request's member epoch is neither the member's nor the one before.
func (g *classicGroup) staleTxnMemberEpoch(req TxnCommitRequest) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	cg := g.c.activeConsumerGroup(g)
	return cg != nil && cg.validateCommit(CommitRequest{GroupID: req.GroupID, MemberID: req.MemberID,
		InstanceID: req.InstanceID, Generation: req.Generation}) == kerr.StaleMemberEpoch
}
