package metadata

import "slices"

// Leader elections, decided and recorded as Kafka 4.4's
// PartitionChangeBuilder decides and records them (electLeader,
// tryElection, maybeUpdateRecordElr, maybeUpdateLastKnownLeader). A clean
// election takes a replica from the ISR, or from the eligible leader
// replicas (ELR) when the ISR is empty. When neither has one, Kafka 4.4
// elects the last known leader (useLastKnownLeaderInBalancedRecovery, on by
// default with ELR) — an unclean election, as it may have lost
// acknowledged writes in an unclean shutdown: the ISR is forced to the new
// leader and the partition marked RECOVERING. An operator's unclean
// election goes further, to any acceptable replica.
//
// Kafka's broker takes RECOVERING as done once it leads, but only writes
// RECOVERED with its next AlterPartition, which an ISR change sends: on a
// single node there is none, so the metadata keeps RECOVERING, and a later
// unclean election writes no state (measured on Kafka 4.4.0: kill -9, then
// a restart elected the last known leader with leaderRecoveryState 1, and
// no RECOVERED record followed; a second kill -9 and restart wrote the
// election without the field).

// electionKind is Kafka's PartitionChangeBuilder.Election.
type electionKind int8

const (
	// electPreferred: the first replica, if it may lead cleanly.
	electPreferred electionKind = iota
	// electOnline: the controller's own elections (a broker registering
	// or unfencing): clean, else the last known leader.
	electOnline
	// electUnclean: as online, else any acceptable replica.
	electUnclean
)

// electLeader returns the replica Kafka would elect to lead p, and whether
// the election is unclean; NoLeader when none can be. acceptable says
// whether a replica may lead at all (a live broker whose replica is in an
// online dir: Kafka's LeaderAcceptor).
func (img *Image) electLeader(p *Partition, kind electionKind, acceptable func(int32) bool) (leader int32, unclean bool) {
	clean := func(r int32) bool {
		return (slices.Contains(p.ISR, r) || len(p.ISR) == 0 && slices.Contains(p.EligibleLeaderReplicas, r)) && acceptable(r)
	}
	if kind == electPreferred && len(p.Replicas) > 0 && clean(p.Replicas[0]) {
		return p.Replicas[0], false
	}
	if p.Leader >= 0 && clean(p.Leader) {
		return p.Leader, false
	}
	for _, r := range p.Replicas {
		if clean(r) {
			return r, false
		}
	}
	if img.elrEnabled() && len(p.ISR) == 0 && len(p.EligibleLeaderReplicas) == 0 &&
		len(p.LastKnownELR) == 1 && acceptable(p.LastKnownELR[0]) {
		return p.LastKnownELR[0], true
	}
	if kind == electUnclean {
		for _, r := range p.Replicas {
			if acceptable(r) {
				return r, true
			}
		}
	}
	return NoLeader, false
}

// electionChange is the PartitionChangeRecord making leader the leader of
// p, partition of topic id, as Kafka's builder writes it; nil when leader
// already leads. An election from the ELR makes the leader the ISR and
// takes it out of the ELR; an unclean one sets the ISR to the leader alone,
// empties the ELR and marks the partition RECOVERING. A partition that
// gets a leader forgets its last known one. (Kafka also keeps the ELR of
// an ISR smaller than min.insync.replicas; on one node an ISR that is not
// empty is the node alone, which meets any min.insync.replicas a single
// node can be given without refusing every acks=all write.)
func (img *Image) electionChange(id UUID, p *Partition, leader int32, unclean bool) *PartitionChangeRecord {
	if leader == p.Leader {
		return nil
	}
	elr := img.elrEnabled()
	c := NewPartitionChangeRecord(img.MetadataVersion(), id, p.ID)
	c.Leader = leader
	targetISR, targetELR := p.ISR, []int32{}
	if elr && len(p.ISR) == 0 {
		targetELR = p.EligibleLeaderReplicas
	}
	switch {
	case unclean:
		c.ISR = []int32{leader}
		if p.LeaderRecoveryState != LeaderRecovering {
			c.LeaderRecoveryState = LeaderRecovering
		}
		targetELR = []int32{}
	case slices.Contains(targetELR, leader):
		targetISR = []int32{leader}
		targetELR = slices.DeleteFunc(slices.Clone(targetELR), func(r int32) bool { return r == leader })
	}
	if !slices.Equal(targetELR, p.EligibleLeaderReplicas) {
		c.EligibleLeaderReplicas = append([]int32{}, targetELR...)
	}
	if c.ISR == nil && (len(targetISR) > 0 || elr) && !slices.Equal(targetISR, p.ISR) {
		c.ISR = slices.Clone(targetISR)
	}
	if elr && len(p.LastKnownELR) > 0 {
		c.LastKnownELR = []int32{}
	}
	return c
}

// elrEnabled: eligible leader replicas are on (eligible.leader.replicas.version
// 1, which needs metadata.version 4.0-IV1).
func (img *Image) elrEnabled() bool {
	return img.features[FeatureELR] >= 1 && img.MetadataVersion() >= MetadataVersion40IV1
}
