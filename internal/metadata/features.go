package metadata

// Feature names (KIP-584 feature flags, Kafka's Feature enum).
const (
	FeatureMetadataVersion = "metadata.version"
	FeatureKRaftVersion    = "kraft.version"
	FeatureGroupVersion    = "group.version"
	FeatureTransaction     = "transaction.version"
	FeatureELR             = "eligible.leader.replicas.version"
	FeatureShareVersion    = "share.version"
	FeatureStreamsVersion  = "streams.version"
)

// SupportedFeature is the range of levels of one feature this node can run
// at, as ApiVersions reports it and UpdateFeatures checks against.
type SupportedFeature struct {
	Name     string
	MinLevel int16
	MaxLevel int16
	// Default is the level `kafka-storage format` picks at Kafka 4.4's
	// latest production metadata.version, and the level an upgrade without
	// an explicit level means.
	Default int16
}

// SupportedFeatures are the features Karst implements, with Kafka 4.4.0's
// ranges (Feature.latestProduction). share.version and streams.version are
// left out until Karst has share and streams groups: a client must not be
// told it can use them.
var SupportedFeatures = []SupportedFeature{
	{Name: FeatureMetadataVersion, MinLevel: MinMetadataVersion, MaxLevel: MaxMetadataVersion, Default: MaxMetadataVersion},
	{Name: FeatureELR, MinLevel: 0, MaxLevel: 1, Default: 1},
	{Name: FeatureGroupVersion, MinLevel: 0, MaxLevel: 1, Default: 1},
	{Name: FeatureKRaftVersion, MinLevel: 0, MaxLevel: 1, Default: 1},
	{Name: FeatureTransaction, MinLevel: 0, MaxLevel: 2, Default: 2},
}

// LookupSupportedFeature returns the supported range of a feature.
func LookupSupportedFeature(name string) (SupportedFeature, bool) {
	for _, f := range SupportedFeatures {
		if f.Name == name {
			return f, true
		}
	}
	return SupportedFeature{}, false
}

// featureDependencies are Kafka 4.4's FeatureVersion.dependencies: the
// metadata.version a feature level needs. ELR 1 needs 4.0-IV1.
var featureDependencies = map[string]map[int16]int16{
	FeatureELR: {1: MetadataVersion40IV1},
}

// BootstrapFeatures are the finalized features Karst writes into a fresh
// metadata log: what `kafka-storage format` writes at Kafka 4.4's defaults
// (metadata.version first, then by name), without share.version and
// streams.version, which Karst does not support. kraft.version is not
// here: Kafka keeps it in a KRaftVersionRecord control record, never in a
// FeatureLevelRecord.
func BootstrapFeatures() []FeatureLevelRecord {
	var out []FeatureLevelRecord
	for _, f := range SupportedFeatures {
		if f.Name != FeatureKRaftVersion && f.Default > 0 {
			out = append(out, FeatureLevelRecord{Name: f.Name, FeatureLevel: f.Default})
		}
	}
	return out
}

// minISRConfig is the cluster-level config eligible leader replicas bring:
// Kafka's controller writes the broker's static min.insync.replicas as a
// cluster default when ELR is enabled, so that every broker judges the ELR
// by the same value (KIP-966).
const minISRConfig = "min.insync.replicas"

// elrConfigRecord is the ConfigRecord that enabling ELR writes when the
// cluster has no default min.insync.replicas yet.
func (img *Image) elrConfigRecord() *ConfigRecord {
	cluster := ConfigResource{Type: ConfigResourceBroker, Name: ""}
	if _, ok := img.configs[cluster][minISRConfig]; ok {
		return nil
	}
	one := "1"
	return &ConfigRecord{ResourceType: ConfigResourceBroker, ResourceName: "", Name: minISRConfig, Value: &one}
}

// BootstrapRecords returns what Kafka's controller appends to an empty
// metadata log on first activation: the bootstrap feature levels and, as
// ELR is enabled, the cluster's min.insync.replicas, wrapped in a metadata
// transaction named "Bootstrap records".
func BootstrapRecords() []Record {
	name := "Bootstrap records"
	out := []Record{&BeginTransactionRecord{Name: &name}}
	for _, f := range BootstrapFeatures() {
		out = append(out, &f)
	}
	if c := EmptyImage().elrConfigRecord(); c != nil {
		out = append(out, c)
	}
	return append(out, &EndTransactionRecord{})
}
