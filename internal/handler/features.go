package handler

import "github.com/twmb/franz-go/pkg/kmsg"

// feature is a KIP-584 feature flag as ApiVersions v3+ reports it.
type feature struct {
	name               string
	minLevel, maxLevel int16
	// finalized is the level in force; 0 means not finalized (not
	// reported), which is how Kafka shows a feature at level 0.
	finalized int16
}

// features lists only what Karst implements, at the levels the Apache
// Kafka 4.1 broker reports: metadata.version 27 (4.1-IV1),
// transaction.version 2 (KIP-890: an epoch bump per transaction, partitions
// added by Produce v12+ and TxnOffsetCommit v5) and group.version 1 (the
// KIP-848 consumer protocol).
var features = []feature{
	{name: "group.version", minLevel: 0, maxLevel: 1, finalized: 1},
	{name: "metadata.version", minLevel: 7, maxLevel: 27, finalized: 27},
	{name: "transaction.version", minLevel: 0, maxLevel: 2, finalized: 2},
}

// finalizedFeaturesEpoch is the metadata offset at which the finalized
// features were last changed; a single node sets them once, at format.
const finalizedFeaturesEpoch = 0

// addFeatures reports the features in an ApiVersions v3+ response. Below
// v4 a supported feature whose minimum level is 0 is left out, as Kafka
// does since KAFKA-17492: Java clients before 3.8 refuse a range starting
// at 0 ("Expected minValue >= 1") and kill their network thread.
func addFeatures(resp *kmsg.ApiVersionsResponse, version int16) {
	resp.FinalizedFeaturesEpoch = finalizedFeaturesEpoch
	for _, f := range features {
		if f.minLevel > 0 || version >= 4 {
			s := kmsg.NewApiVersionsResponseSupportedFeature()
			s.Name, s.MinVersion, s.MaxVersion = f.name, f.minLevel, f.maxLevel
			resp.SupportedFeatures = append(resp.SupportedFeatures, s)
		}
		if f.finalized > 0 {
			fin := kmsg.NewApiVersionsResponseFinalizedFeature()
			fin.Name, fin.MinVersionLevel, fin.MaxVersionLevel = f.name, f.finalized, f.finalized
			resp.FinalizedFeatures = append(resp.FinalizedFeatures, fin)
		}
	}
}
