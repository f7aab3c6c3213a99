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

// features lists only what Karst implements. metadata.version 27 is
// 4.1-IV1, the level the Apache Kafka 4.1 broker reports. Features whose
// protocols are not served yet (transaction.version, group.version) are
// left out so that clients do not choose them.
var features = []feature{
	{name: "metadata.version", minLevel: 7, maxLevel: 27, finalized: 27},
}

// finalizedFeaturesEpoch is the metadata offset at which the finalized
// features were last changed; a single node sets them once, at format.
const finalizedFeaturesEpoch = 0

func addFeatures(resp *kmsg.ApiVersionsResponse) {
	resp.FinalizedFeaturesEpoch = finalizedFeaturesEpoch
	for _, f := range features {
		s := kmsg.NewApiVersionsResponseSupportedFeature()
		s.Name, s.MinVersion, s.MaxVersion = f.name, f.minLevel, f.maxLevel
		resp.SupportedFeatures = append(resp.SupportedFeatures, s)
		if f.finalized > 0 {
			fin := kmsg.NewApiVersionsResponseFinalizedFeature()
			fin.Name, fin.MinVersionLevel, fin.MaxVersionLevel = f.name, f.finalized, f.finalized
			resp.FinalizedFeatures = append(resp.FinalizedFeatures, fin)
		}
	}
}
