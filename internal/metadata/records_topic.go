package metadata

// Topic and partition records: TopicRecord (2), PartitionRecord (3),
// PartitionChangeRecord (5), RemoveTopicRecord (9), ClearElrRecord (28).

// TopicRecord creates a topic (v0).
type TopicRecord struct {
	Version int16
	Name    string
	TopicID UUID
}

func (t *TopicRecord) APIKey() int16        { return KeyTopic }
func (t *TopicRecord) RecordVersion() int16 { return t.Version }

func (t *TopicRecord) appendBody(b []byte) []byte {
	b = appendCompactString(b, t.Name)
	b = appendUUID(b, t.TopicID)
	return appendTagged(b, nil)
}

func (t *TopicRecord) readBody(r *reader) {
	t.Name = r.compactString()
	t.TopicID = r.uuid()
	r.skipTagged()
}

// RemoveTopicRecord deletes a topic and, on replay, its partitions and
// topic configs (v0).
type RemoveTopicRecord struct {
	Version int16
	TopicID UUID
}

func (t *RemoveTopicRecord) APIKey() int16        { return KeyRemoveTopic }
func (t *RemoveTopicRecord) RecordVersion() int16 { return t.Version }

func (t *RemoveTopicRecord) appendBody(b []byte) []byte {
	return appendTagged(appendUUID(b, t.TopicID), nil)
}

func (t *RemoveTopicRecord) readBody(r *reader) {
	t.TopicID = r.uuid()
	r.skipTagged()
}

// Leader recovery states (LeaderRecoveryState in Kafka).
const (
	LeaderRecovered  int8 = 0
	LeaderRecovering int8 = 1
	// noRecoveryChange is PartitionChangeRecord's "did not change".
	noRecoveryChange int8 = -1
)

// PartitionRecord creates one partition (v0-2). Directories exists from
// v1; EligibleLeaderReplicas and LastKnownElr (nil = null) from v2.
type PartitionRecord struct {
	Version                int16
	PartitionID            int32
	TopicID                UUID
	Replicas               []int32
	ISR                    []int32
	RemovingReplicas       []int32
	AddingReplicas         []int32
	Leader                 int32
	LeaderRecoveryState    int8 // tag 0, default 0
	LeaderEpoch            int32
	PartitionEpoch         int32
	Directories            []UUID
	EligibleLeaderReplicas []int32 // tag 1, v2+, nullable
	LastKnownELR           []int32 // tag 2, v2+, nullable
}

func (p *PartitionRecord) APIKey() int16        { return KeyPartition }
func (p *PartitionRecord) RecordVersion() int16 { return p.Version }

func (p *PartitionRecord) appendBody(b []byte) []byte {
	b = appendInt32(b, p.PartitionID)
	b = appendUUID(b, p.TopicID)
	b = appendCompactInt32s(b, nonNil(p.Replicas))
	b = appendCompactInt32s(b, nonNil(p.ISR))
	b = appendCompactInt32s(b, nonNil(p.RemovingReplicas))
	b = appendCompactInt32s(b, nonNil(p.AddingReplicas))
	b = appendInt32(b, p.Leader)
	b = appendInt32(b, p.LeaderEpoch)
	b = appendInt32(b, p.PartitionEpoch)
	if p.Version >= 1 {
		b = appendCompactUUIDs(b, nonNilUUIDs(p.Directories))
	}
	var tags []taggedField
	if p.LeaderRecoveryState != LeaderRecovered {
		tags = append(tags, taggedField{0, []byte{byte(p.LeaderRecoveryState)}})
	}
	if p.Version >= 2 && p.EligibleLeaderReplicas != nil {
		tags = append(tags, taggedField{1, appendCompactInt32s(nil, p.EligibleLeaderReplicas)})
	}
	if p.Version >= 2 && p.LastKnownELR != nil {
		tags = append(tags, taggedField{2, appendCompactInt32s(nil, p.LastKnownELR)})
	}
	return appendTagged(b, tags)
}

func (p *PartitionRecord) readBody(r *reader) {
	p.PartitionID = r.int32()
	p.TopicID = r.uuid()
	p.Replicas = r.compactInt32s(false)
	p.ISR = r.compactInt32s(false)
	p.RemovingReplicas = r.compactInt32s(false)
	p.AddingReplicas = r.compactInt32s(false)
	p.Leader = r.int32()
	p.LeaderEpoch = r.int32()
	p.PartitionEpoch = r.int32()
	if p.Version >= 1 {
		p.Directories = r.compactUUIDs(false)
	}
	r.tagged(func(tag uint32, fr *reader) bool {
		switch {
		case tag == 0:
			p.LeaderRecoveryState = fr.int8()
		case tag == 1 && p.Version >= 2:
			p.EligibleLeaderReplicas = fr.compactInt32s(true)
		case tag == 2 && p.Version >= 2:
			p.LastKnownELR = fr.compactInt32s(true)
		default:
			return false
		}
		return true
	})
}

// Sentinels of PartitionChangeRecord.Leader.
const (
	NoLeader       int32 = -1
	NoLeaderChange int32 = -2
)

// PartitionChangeRecord changes one partition (v0-2). Every change field is
// tagged; nil slices, Leader == NoLeaderChange and LeaderRecoveryState ==
// -1 mean "unchanged". Use NewPartitionChangeRecord for those defaults.
type PartitionChangeRecord struct {
	Version                int16
	PartitionID            int32
	TopicID                UUID
	ISR                    []int32 // tag 0
	Leader                 int32   // tag 1, default -2
	Replicas               []int32 // tag 2
	RemovingReplicas       []int32 // tag 3
	AddingReplicas         []int32 // tag 4
	LeaderRecoveryState    int8    // tag 5, default -1
	EligibleLeaderReplicas []int32 // tag 6, v2+
	LastKnownELR           []int32 // tag 7, v2+
	Directories            []UUID  // tag 8, v1+
}

// NewPartitionChangeRecord returns a change of nothing at the version
// Kafka writes at metadata.version mv.
func NewPartitionChangeRecord(mv int16, topicID UUID, partition int32) *PartitionChangeRecord {
	return &PartitionChangeRecord{
		Version:             recordVersionsAt(mv).partitionChange,
		PartitionID:         partition,
		TopicID:             topicID,
		Leader:              NoLeaderChange,
		LeaderRecoveryState: noRecoveryChange,
	}
}

func (p *PartitionChangeRecord) APIKey() int16        { return KeyPartitionChange }
func (p *PartitionChangeRecord) RecordVersion() int16 { return p.Version }

func (p *PartitionChangeRecord) appendBody(b []byte) []byte {
	b = appendInt32(b, p.PartitionID)
	b = appendUUID(b, p.TopicID)
	var tags []taggedField
	addInts := func(tag uint32, vs []int32) {
		if vs != nil {
			tags = append(tags, taggedField{tag, appendCompactInt32s(nil, vs)})
		}
	}
	addInts(0, p.ISR)
	if p.Leader != NoLeaderChange {
		tags = append(tags, taggedField{1, appendInt32(nil, p.Leader)})
	}
	addInts(2, p.Replicas)
	addInts(3, p.RemovingReplicas)
	addInts(4, p.AddingReplicas)
	if p.LeaderRecoveryState != noRecoveryChange {
		tags = append(tags, taggedField{5, []byte{byte(p.LeaderRecoveryState)}})
	}
	if p.Version >= 2 {
		addInts(6, p.EligibleLeaderReplicas)
		addInts(7, p.LastKnownELR)
	}
	if p.Version >= 1 && p.Directories != nil {
		tags = append(tags, taggedField{8, appendCompactUUIDs(nil, p.Directories)})
	}
	return appendTagged(b, tags)
}

func (p *PartitionChangeRecord) readBody(r *reader) {
	p.PartitionID = r.int32()
	p.TopicID = r.uuid()
	p.Leader = NoLeaderChange
	p.LeaderRecoveryState = noRecoveryChange
	r.tagged(func(tag uint32, fr *reader) bool {
		switch {
		case tag == 0:
			p.ISR = fr.compactInt32s(true)
		case tag == 1:
			p.Leader = fr.int32()
		case tag == 2:
			p.Replicas = fr.compactInt32s(true)
		case tag == 3:
			p.RemovingReplicas = fr.compactInt32s(true)
		case tag == 4:
			p.AddingReplicas = fr.compactInt32s(true)
		case tag == 5:
			p.LeaderRecoveryState = fr.int8()
		case tag == 6 && p.Version >= 2:
			p.EligibleLeaderReplicas = fr.compactInt32s(true)
		case tag == 7 && p.Version >= 2:
			p.LastKnownELR = fr.compactInt32s(true)
		case tag == 8 && p.Version >= 1:
			p.Directories = fr.compactUUIDs(true)
		default:
			return false
		}
		return true
	})
}

// nonNil turns nil into an empty slice for non-nullable array fields, so an
// unset field is written as an empty array rather than an illegal null.
func nonNil(vs []int32) []int32 {
	if vs == nil {
		return []int32{}
	}
	return vs
}

func nonNilUUIDs(vs []UUID) []UUID {
	if vs == nil {
		return []UUID{}
	}
	return vs
}

// ClearElrRecord empties the eligible leader replicas and last known ELR
// of every partition of a topic, or of every topic when TopicName is ""
// (v0). Kafka's controller writes it after a min.insync.replicas change
// while ELR is enabled, since the ELR were judged by the old value.
type ClearElrRecord struct {
	Version   int16
	TopicName string
}

func (c *ClearElrRecord) APIKey() int16        { return KeyClearElr }
func (c *ClearElrRecord) RecordVersion() int16 { return c.Version }

func (c *ClearElrRecord) appendBody(b []byte) []byte {
	return appendTagged(appendCompactString(b, c.TopicName), nil)
}

func (c *ClearElrRecord) readBody(r *reader) {
	c.TopicName = r.compactString()
	r.skipTagged()
}
