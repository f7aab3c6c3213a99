package metadata

// Feature names and the levels Karst finalizes on a fresh log.
const (
	FeatureMetadataVersion = "metadata.version"
	FeatureKRaftVersion    = "kraft.version"
	FeatureGroupVersion    = "group.version"
	FeatureTransaction     = "transaction.version"
	FeatureELR             = "eligible.leader.replicas.version"
	FeatureShareVersion    = "share.version"
	FeatureStreamsVersion  = "streams.version"
)

// MetadataVersion41IV1 is the feature level of metadata.version 4.1-IV1,
// the latest production level of Kafka 4.1 (4.0-IV3 is 25, 4.1-IV0 26).
const MetadataVersion41IV1 int16 = 27

// BootstrapFeatures are the finalized features Karst writes into a fresh
// metadata log, meant to match `kafka-storage format --release-version 4.1`.
// kraft.version is not here: Kafka keeps it in a KRaftVersionRecord control
// record, never in a FeatureLevelRecord.
// TODO(verify): group/transaction/ELR defaults come from the feature
// enums' bootstrap versions as best known; check against a real 4.1 format.
var BootstrapFeatures = []FeatureLevelRecord{
	{Name: FeatureMetadataVersion, FeatureLevel: MetadataVersion41IV1},
	{Name: FeatureELR, FeatureLevel: 1},
	{Name: FeatureGroupVersion, FeatureLevel: 1},
	{Name: FeatureTransaction, FeatureLevel: 2},
}

// BootstrapRecords returns what Kafka's controller appends to an empty
// metadata log on first activation: the bootstrap feature levels wrapped in
// a metadata transaction named "Bootstrap records".
func BootstrapRecords() []Record {
	name := "Bootstrap records"
	out := []Record{&BeginTransactionRecord{Name: &name}}
	for i := range BootstrapFeatures {
		f := BootstrapFeatures[i]
		out = append(out, &f)
	}
	return append(out, &EndTransactionRecord{})
}
