package metadata

// Cluster-wide records: ConfigRecord (4), FeatureLevelRecord (12),
// ProducerIdsRecord (15), NoOpRecord (20), ZkMigrationStateRecord (21) and
// the metadata transaction markers (23, 24, 25).

// Config resource types (ConfigResource.Type in Kafka).
const (
	ConfigResourceTopic         int8 = 2
	ConfigResourceBroker        int8 = 4
	ConfigResourceClientMetrics int8 = 16
	ConfigResourceGroup         int8 = 32
)

// ConfigRecord sets (Value non-nil) or deletes (Value nil) one config key
// of one resource (v0). A broker resource named "" is the cluster-wide
// default.
type ConfigRecord struct {
	Version      int16
	ResourceType int8
	ResourceName string
	Name         string
	Value        *string
}

func (c *ConfigRecord) APIKey() int16        { return KeyConfig }
func (c *ConfigRecord) RecordVersion() int16 { return c.Version }

func (c *ConfigRecord) appendBody(b []byte) []byte {
	b = appendInt8(b, c.ResourceType)
	b = appendCompactString(b, c.ResourceName)
	b = appendCompactString(b, c.Name)
	b = appendCompactNullableString(b, c.Value)
	return appendTagged(b, nil)
}

func (c *ConfigRecord) readBody(r *reader) {
	c.ResourceType = r.int8()
	c.ResourceName = r.compactString()
	c.Name = r.compactString()
	c.Value = r.compactNullableString()
	r.skipTagged()
}

// FeatureLevelRecord finalizes a feature at a level; level 0 removes it
// (v0, which Kafka never advances).
type FeatureLevelRecord struct {
	Version      int16
	Name         string
	FeatureLevel int16
}

func (f *FeatureLevelRecord) APIKey() int16        { return KeyFeatureLevel }
func (f *FeatureLevelRecord) RecordVersion() int16 { return f.Version }

func (f *FeatureLevelRecord) appendBody(b []byte) []byte {
	b = appendCompactString(b, f.Name)
	b = appendInt16(b, f.FeatureLevel)
	return appendTagged(b, nil)
}

func (f *FeatureLevelRecord) readBody(r *reader) {
	f.Name = r.compactString()
	f.FeatureLevel = r.int16()
	r.skipTagged()
}

// ProducerIDsRecord records that a broker took a block of producer ids;
// NextProducerID is the first id of the block after it (v0).
type ProducerIDsRecord struct {
	Version        int16
	BrokerID       int32
	BrokerEpoch    int64
	NextProducerID int64
}

func (p *ProducerIDsRecord) APIKey() int16        { return KeyProducerIDs }
func (p *ProducerIDsRecord) RecordVersion() int16 { return p.Version }

func (p *ProducerIDsRecord) appendBody(b []byte) []byte {
	b = appendInt32(b, p.BrokerID)
	b = appendInt64(b, p.BrokerEpoch)
	b = appendInt64(b, p.NextProducerID)
	return appendTagged(b, nil)
}

func (p *ProducerIDsRecord) readBody(r *reader) {
	p.BrokerID = r.int32()
	p.BrokerEpoch = r.int64()
	p.NextProducerID = r.int64()
	r.skipTagged()
}

// NoOpRecord carries nothing; Kafka's controller appends it periodically
// so the high watermark advances (v0).
type NoOpRecord struct{ Version int16 }

func (n *NoOpRecord) APIKey() int16              { return KeyNoOp }
func (n *NoOpRecord) RecordVersion() int16       { return n.Version }
func (n *NoOpRecord) appendBody(b []byte) []byte { return appendTagged(b, nil) }
func (n *NoOpRecord) readBody(r *reader)         { r.skipTagged() }

// ZkMigrationStateRecord is what KRaft controllers wrote for ZooKeeper
// migration; a de-novo KRaft cluster records state 0 (NONE) (v0).
type ZkMigrationStateRecord struct {
	Version          int16
	ZkMigrationState int8
}

func (z *ZkMigrationStateRecord) APIKey() int16        { return KeyZkMigrationState }
func (z *ZkMigrationStateRecord) RecordVersion() int16 { return z.Version }

func (z *ZkMigrationStateRecord) appendBody(b []byte) []byte {
	return appendTagged(appendInt8(b, z.ZkMigrationState), nil)
}

func (z *ZkMigrationStateRecord) readBody(r *reader) {
	z.ZkMigrationState = r.int8()
	r.skipTagged()
}

// BeginTransactionRecord opens a metadata transaction (KIP-868): records up
// to the matching EndTransactionRecord apply together, and are discarded if
// an AbortTransactionRecord comes first (v0).
type BeginTransactionRecord struct {
	Version int16
	Name    *string // tag 0, nullable
}

func (t *BeginTransactionRecord) APIKey() int16        { return KeyBeginTransaction }
func (t *BeginTransactionRecord) RecordVersion() int16 { return t.Version }

func (t *BeginTransactionRecord) appendBody(b []byte) []byte {
	return appendOptionalStringTag(b, t.Name)
}

func (t *BeginTransactionRecord) readBody(r *reader) { t.Name = readOptionalStringTag(r) }

// EndTransactionRecord commits a metadata transaction (v0).
type EndTransactionRecord struct{ Version int16 }

func (t *EndTransactionRecord) APIKey() int16              { return KeyEndTransaction }
func (t *EndTransactionRecord) RecordVersion() int16       { return t.Version }
func (t *EndTransactionRecord) appendBody(b []byte) []byte { return appendTagged(b, nil) }
func (t *EndTransactionRecord) readBody(r *reader)         { r.skipTagged() }

// AbortTransactionRecord discards an open metadata transaction (v0).
type AbortTransactionRecord struct {
	Version int16
	Reason  *string // tag 0, nullable
}

func (t *AbortTransactionRecord) APIKey() int16        { return KeyAbortTransaction }
func (t *AbortTransactionRecord) RecordVersion() int16 { return t.Version }

func (t *AbortTransactionRecord) appendBody(b []byte) []byte {
	return appendOptionalStringTag(b, t.Reason)
}

func (t *AbortTransactionRecord) readBody(r *reader) { t.Reason = readOptionalStringTag(r) }

// appendOptionalStringTag writes a body whose only field is a nullable
// string in tag 0 with default null.
func appendOptionalStringTag(b []byte, s *string) []byte {
	if s == nil {
		return appendTagged(b, nil)
	}
	return appendTagged(b, []taggedField{{0, appendCompactNullableString(nil, s)}})
}

func readOptionalStringTag(r *reader) *string {
	var s *string
	r.tagged(func(tag uint32, fr *reader) bool {
		if tag != 0 {
			return false
		}
		s = fr.compactNullableString()
		return true
	})
	return s
}
