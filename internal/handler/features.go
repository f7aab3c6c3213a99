package handler

import (
	"maps"
	"slices"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// addFeatures reports the features in an ApiVersions v3+ response as Kafka
// 4.4 does: the supported ranges (metadata.SupportedFeatures) and the
// levels finalized by the FeatureLevelRecords of the cluster metadata (and
// kraft.version from the raft log's KRaftVersionRecord), with
// the metadata offset of the image as the finalized features epoch. Below
// v4 a supported feature whose minimum level is 0 is left out, as Kafka
// does since KAFKA-17492: Java clients before 3.8 refuse a range starting
// at 0 ("Expected minValue >= 1") and kill their network thread. A level
// finalized for a feature Karst does not support (share.version and
// streams.version in a directory Kafka formatted) is kept in the metadata
// but not reported, so no client is told it may use what is not there.
func (b *Broker) addFeatures(resp *kmsg.ApiVersionsResponse, version int16) {
	for _, f := range metadata.SupportedFeatures {
		if f.MinLevel > 0 || version >= 4 {
			s := kmsg.NewApiVersionsResponseSupportedFeature()
			s.Name, s.MinVersion, s.MaxVersion = f.Name, f.MinLevel, f.MaxLevel
			resp.SupportedFeatures = append(resp.SupportedFeatures, s)
		}
	}
	if b.opts.Metadata == nil {
		return
	}
	resp.FinalizedFeaturesEpoch = b.opts.Metadata.LastOffset()
	finalized := maps.Clone(b.opts.Metadata.Image().Features())
	if kv := b.opts.Metadata.KRaftVersion(); kv > 0 {
		finalized[metadata.FeatureKRaftVersion] = kv
	}
	names := make([]string, 0, len(finalized))
	for name := range finalized {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		level := finalized[name]
		if _, ok := metadata.LookupSupportedFeature(name); !ok || level <= 0 {
			continue
		}
		fin := kmsg.NewApiVersionsResponseFinalizedFeature()
		fin.Name, fin.MinVersionLevel, fin.MaxVersionLevel = name, level, level
		resp.FinalizedFeatures = append(resp.FinalizedFeatures, fin)
	}
}

// featureLevel is the finalized level of a feature, 0 without metadata.
func (b *Broker) featureLevel(name string) int16 {
	if b.opts.Metadata == nil {
		return 0
	}
	return b.opts.Metadata.Image().FeatureLevel(name)
}

// transactionVersion2 reports whether transaction.version is finalized at 2
// or more: only then do transactional Produce v12+ requests add their
// partitions to the transaction (KIP-890 part 2), since clients that do not
// use it may still send v12 and must keep the AddPartitionsToTxn check (a
// late write of a finished transaction must not open a new one).
func (b *Broker) transactionVersion2() bool {
	return b.featureLevel(metadata.FeatureTransaction) >= 2
}
