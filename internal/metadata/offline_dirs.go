package metadata

import "slices"

// Log dirs going offline and coming back, recorded as Kafka's controller
// records them. A broker reports the directory.ids of the dirs that
// failed (BrokerHeartbeat OfflineLogDirs) and the controller writes, in
// ReplicationControlManager.handleDirectoriesOffline, a
// PartitionChangeRecord for each partition whose replica on that broker
// is in one of them, taking the broker out as generateLeaderAndIsrUpdates
// does, then a BrokerRegistrationChangeRecord listing the dirs left. A
// broker that starts registers only the dirs it could open; a replica in
// a dir it did not register may not lead (LeaderAcceptor), and once the
// broker registers the dir again it is elected as on unfencing.

// unassignedDirectoryID is DirectoryId.UNASSIGNED and migratingDirectoryID
// DirectoryId.MIGRATING: replicas recorded so are taken to be online.
var (
	unassignedDirectoryID = MetadataTopicID
	migratingDirectoryID  = ZeroUUID
)

// LogDirsOffline returns the records of node's log dirs not in online
// having failed: a BrokerRegistrationChangeRecord (v2) with online as the
// registered dirs, when the registration lists a dir online lacks, and the
// PartitionChangeRecords of the partitions in the dirs that are gone. Nil
// when the metadata already says so, or below metadata.version 3.7-IV2
// (no directories recorded).
func (img *Image) LogDirsOffline(nodeID int32, online []UUID) []Record {
	b, ok := img.brokers[nodeID]
	if !ok || img.MetadataVersion() < MetadataVersion37IV2 || len(online) == 0 {
		return nil
	}
	var out []Record
	if slices.ContainsFunc(b.LogDirs, func(d UUID) bool { return !slices.Contains(online, d) }) {
		out = append(out, &BrokerRegistrationChangeRecord{Version: 2, BrokerID: nodeID, BrokerEpoch: b.Epoch, LogDirs: slices.Clone(online)})
	}
	return append(out, img.offlineReplicaChanges(nodeID, online)...)
}

// offlineReplicaChanges are the PartitionChangeRecords taking node out of
// the partitions whose replica on it is recorded in a dir not in online:
// no longer leader, and out of the ISR unless it is the last member —
// with eligible leader replicas enabled the ISR empties and the node goes
// into the ELR and, as the last leader, the last known ELR, as Kafka
// 4.4's PartitionChangeBuilder does.
func (img *Image) offlineReplicaChanges(nodeID int32, online []UUID) []Record {
	if img.MetadataVersion() < MetadataVersion37IV2 || len(online) == 0 {
		return nil
	}
	elr := img.features[FeatureELR] >= 1 && img.MetadataVersion() >= MetadataVersion40IV1
	var out []Record
	for _, t := range img.Topics() {
		for _, p := range t.Partitions {
			if p == nil || !replicaOffline(p, nodeID, online) {
				continue
			}
			c := NewPartitionChangeRecord(img.MetadataVersion(), t.ID, p.ID)
			if p.Leader == nodeID {
				c.Leader = NoLeader
			}
			isr := slices.DeleteFunc(slices.Clone(p.ISR), func(r int32) bool { return r == nodeID })
			switch {
			case len(isr) == len(p.ISR):
			case elr:
				c.ISR = isr
				// The ISR is below any min.insync.replicas: the members
				// leaving it become eligible leaders.
				targetELR := unionWithout(p.EligibleLeaderReplicas, p.ISR, isr)
				if !slices.Equal(targetELR, p.EligibleLeaderReplicas) {
					c.EligibleLeaderReplicas = targetELR
				}
				// Kafka 4.4 keeps the leader of a partition whose ISR
				// empties as its last known leader
				// (useLastKnownLeaderInBalancedRecovery, on by default),
				// which it elects after an unclean shutdown cleared the ELR.
				if len(isr) == 0 && p.Leader >= 0 && !slices.Equal(p.LastKnownELR, []int32{p.Leader}) {
					c.LastKnownELR = []int32{p.Leader}
				}
			case len(isr) > 0:
				c.ISR = isr
			}
			if c.Leader == NoLeaderChange && c.ISR == nil && c.EligibleLeaderReplicas == nil {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// replicaOffline says whether node's replica of p is recorded in a dir
// that is not online (DirectoryId.isOnline: unassigned and migrating
// replicas count as online, LOST does not).
func replicaOffline(p *Partition, nodeID int32, online []UUID) bool {
	i := slices.Index(p.Replicas, nodeID)
	if i < 0 || i >= len(p.Directories) {
		return false
	}
	d := p.Directories[i]
	return d != unassignedDirectoryID && d != migratingDirectoryID && !slices.Contains(online, d)
}

// unionWithout is a ∪ b without the members of drop, in first-seen order.
func unionWithout(a, b, drop []int32) []int32 {
	out := []int32{}
	for _, r := range slices.Concat(a, b) {
		if !slices.Contains(drop, r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
