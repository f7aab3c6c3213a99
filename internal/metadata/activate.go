package metadata

import "slices"

// Taking over a log another process wrote. When Apache Kafka stops
// cleanly it writes a controlled shutdown: its broker is fenced and every
// partition it led is left without a leader (leader -1; with ELR, an empty
// ISR and the node in eligibleLeaderReplicas/lastKnownElr). After kill -9
// its registration simply stays. A restarted Kafka re-registers, unfences
// and elects itself again; Karst does the same in one batch: it registers
// its node (unfenced) and elects itself leader of the partitions it hosts
// that have none, with the PartitionChangeRecords Kafka's controller
// writes on unfencing.
//
// Karst has no heartbeats, so its registration is fixed: broker epoch
// SingleNodeBrokerEpoch. The registration matters to Kafka starting on a
// log Karst wrote: Kafka's controller treats its own new registration as a
// clean restart (keeping the node eligible to lead without data loss) only
// when a registration of the node exists whose epoch equals the
// brokerEpoch in the log dir's .kafka_cleanshutdown marker, so Karst
// writes that marker with this epoch when it stops cleanly.

// SingleNodeBrokerEpoch is the broker epoch of Karst's own registration.
// Kafka uses the offset of the RegisterBrokerRecord; any fixed value works
// for a node that never re-registers while it runs.
const SingleNodeBrokerEpoch int64 = 0

// ActivationRecords returns what node must commit before serving img: a
// RegisterBrokerRecord for node unless img already holds Karst's own
// registration (epoch SingleNodeBrokerEpoch, unfenced, not shutting down),
// and a PartitionChangeRecord electing node for each partition it replicates
// whose leader is someone else or no one and which node may lead, as
// Kafka's controller elects on unfencing (electOnline: from the ISR, from
// the ELR when the ISR is empty, else uncleanly the last known leader,
// RECOVERING). Nil when img is already node's own.
//
// The registration lists the log dirs node could open (node.LogDirs): one
// that lists others is replaced, a partition whose replica is recorded in
// a dir node did not register is not elected, and if node leads it or is
// in its ISR it is taken out as when a dir fails at run time (see
// LogDirsOffline).
func (img *Image) ActivationRecords(node Node) []Record {
	var out []Record
	reg := img.registration(node)
	b, ok := img.brokers[node.ID]
	// Below 3.7-IV2 the registration records no log dirs to compare.
	dirsChanged := ok && img.MetadataVersion() >= MetadataVersion37IV2 && !sameDirs(b.LogDirs, reg.LogDirs)
	if !ok || b.Epoch != SingleNodeBrokerEpoch || b.Fenced || b.InControlledShutdown || dirsChanged {
		out = append(out, reg)
	}
	out = append(out, img.offlineReplicaChanges(node.ID, reg.LogDirs)...)
	for _, t := range img.Topics() {
		for _, p := range t.Partitions {
			if p == nil || p.Leader == node.ID || !slices.Contains(p.Replicas, node.ID) {
				continue
			}
			acceptable := func(id int32) bool {
				return id == node.ID && !(len(reg.LogDirs) > 0 && replicaOffline(p, id, reg.LogDirs))
			}
			if leader, unclean := img.electLeader(p, electOnline, acceptable); leader == node.ID {
				out = append(out, img.electionChange(t.ID, p, leader, unclean))
			}
		}
	}
	return out
}

// registration registers node the way Kafka's controller records a broker
// registration, supporting exactly the finalized feature levels. Karst
// keeps no listeners here: clients learn them from Karst's config.
func (img *Image) registration(node Node) *RegisterBrokerRecord {
	r := &RegisterBrokerRecord{
		Version:       recordVersionsAt(img.MetadataVersion()).registerBroker,
		BrokerID:      node.ID,
		IncarnationID: RandomUUID(),
		BrokerEpoch:   SingleNodeBrokerEpoch,
		EndPoints:     []BrokerEndpoint{},
	}
	for _, name := range sortedKeys(img.features) {
		level := img.features[name]
		r.Features = append(r.Features, BrokerFeature{Name: name, MinSupportedVersion: level, MaxSupportedVersion: level})
	}
	switch {
	case len(node.LogDirs) > 0:
		r.LogDirs = slices.Clone(node.LogDirs)
	case node.DirectoryID != (UUID{}):
		r.LogDirs = []UUID{node.DirectoryID}
	}
	return r
}

// sameDirs says whether two registrations list the same log dirs.
func sameDirs(a, b []UUID) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(d UUID) bool { return !slices.Contains(b, d) })
}
