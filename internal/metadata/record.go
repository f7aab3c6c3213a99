package metadata

import (
	"errors"
	"fmt"
)

// API keys of the metadata records (MetadataRecordType in Kafka).
const (
	KeyRegisterBroker           int16 = 0
	KeyUnregisterBroker         int16 = 1
	KeyTopic                    int16 = 2
	KeyPartition                int16 = 3
	KeyConfig                   int16 = 4
	KeyPartitionChange          int16 = 5
	KeyRemoveTopic              int16 = 9
	KeyFeatureLevel             int16 = 12
	KeyProducerIDs              int16 = 15
	KeyBrokerRegistrationChange int16 = 17
	KeyNoOp                     int16 = 20
	KeyZkMigrationState         int16 = 21
	KeyBeginTransaction         int16 = 23
	KeyEndTransaction           int16 = 24
	KeyAbortTransaction         int16 = 25
	KeyClearElr                 int16 = 28
)

// frameVersion is the version of the envelope AbstractApiMessageSerde puts
// around every metadata record.
const frameVersion = 1

// Record is one KRaft metadata record: the value of one record in a
// __cluster_metadata data batch, minus the frame. Each concrete type
// carries the Version it is (or was) encoded at.
type Record interface {
	APIKey() int16
	RecordVersion() int16
	appendBody(b []byte) []byte
	readBody(r *reader)
}

// maxVersion is the highest version this package can read per key: every
// version kafka-metadata 4.4.0 defines (common/metadata/*.json).
var maxVersion = map[int16]int16{
	KeyRegisterBroker:            4,
	KeyUnregisterBroker:          0,
	KeyTopic:                     0,
	KeyPartition:                 2,
	KeyConfig:                    0,
	KeyClientQuota:               0,
	KeyPartitionChange:           2,
	KeyRemoveTopic:               0,
	KeyFeatureLevel:              0,
	KeyProducerIDs:               0,
	KeyBrokerRegistrationChange:  3,
	KeyNoOp:                      0,
	KeyZkMigrationState:          0,
	KeyBeginTransaction:          0,
	KeyEndTransaction:            0,
	KeyAbortTransaction:          0,
	KeyClearElr:                  0,
	KeyUserScramCredential:       0,
	KeyRemoveUserScramCredential: 0,
	KeyDelegationToken:           0,
	KeyRemoveDelegationToken:     0,
	KeyAccessControlEntry:        0,
	KeyRemoveAccessControlEntry:  0,
}

func newRecord(key, version int16) Record {
	switch key {
	case KeyRegisterBroker:
		return &RegisterBrokerRecord{Version: version}
	case KeyUnregisterBroker:
		return &UnregisterBrokerRecord{Version: version}
	case KeyTopic:
		return &TopicRecord{Version: version}
	case KeyPartition:
		return &PartitionRecord{Version: version}
	case KeyConfig:
		return &ConfigRecord{Version: version}
	case KeyClientQuota:
		return &ClientQuotaRecord{Version: version}
	case KeyPartitionChange:
		return &PartitionChangeRecord{Version: version}
	case KeyRemoveTopic:
		return &RemoveTopicRecord{Version: version}
	case KeyFeatureLevel:
		return &FeatureLevelRecord{Version: version}
	case KeyProducerIDs:
		return &ProducerIDsRecord{Version: version}
	case KeyBrokerRegistrationChange:
		return &BrokerRegistrationChangeRecord{Version: version}
	case KeyNoOp:
		return &NoOpRecord{Version: version}
	case KeyZkMigrationState:
		return &ZkMigrationStateRecord{Version: version}
	case KeyBeginTransaction:
		return &BeginTransactionRecord{Version: version}
	case KeyEndTransaction:
		return &EndTransactionRecord{Version: version}
	case KeyAbortTransaction:
		return &AbortTransactionRecord{Version: version}
	case KeyClearElr:
		return &ClearElrRecord{Version: version}
	case KeyUserScramCredential:
		return &UserScramCredentialRecord{Version: version}
	case KeyRemoveUserScramCredential:
		return &RemoveUserScramCredentialRecord{Version: version}
	case KeyDelegationToken:
		return &DelegationTokenRecord{Version: version}
	case KeyRemoveDelegationToken:
		return &RemoveDelegationTokenRecord{Version: version}
	case KeyAccessControlEntry:
		return &AccessControlEntryRecord{Version: version}
	case KeyRemoveAccessControlEntry:
		return &RemoveAccessControlEntryRecord{Version: version}
	}
	return nil
}

// UnknownRecord is a well-framed record of a type this package does not
// model (controller registrations,
// ...). Replay ignores it; Body keeps its bytes so nothing
// is lost when it is written back.
type UnknownRecord struct {
	Key     int16
	Version int16
	Body    []byte
}

func (u *UnknownRecord) APIKey() int16              { return u.Key }
func (u *UnknownRecord) RecordVersion() int16       { return u.Version }
func (u *UnknownRecord) appendBody(b []byte) []byte { return append(b, u.Body...) }
func (u *UnknownRecord) readBody(r *reader)         { u.Body = append([]byte(nil), r.take(len(r.b))...) }

// Encode serializes rec as MetadataRecordSerde does: unsigned varint frame
// version 1, unsigned varint api key, unsigned varint version, then the
// flexible message body.
func Encode(rec Record) []byte {
	return AppendEncode(nil, rec)
}

// AppendEncode appends the encoding of rec to b.
func AppendEncode(b []byte, rec Record) []byte {
	b = appendUvarint(b, frameVersion)
	b = appendUvarint(b, uint64(uint16(rec.APIKey())))
	b = appendUvarint(b, uint64(uint16(rec.RecordVersion())))
	return rec.appendBody(b)
}

// Decode parses one framed metadata record. Records of unmodelled types
// come back as *UnknownRecord; a known type at a version above what this
// package reads is an error, as is any byte left after the body.
func Decode(b []byte) (Record, error) {
	r := &reader{b: b}
	frame := r.uvarint()
	key := r.uvarint()
	version := r.uvarint()
	if r.err != nil {
		return nil, r.err
	}
	if frame != frameVersion {
		return nil, fmt.Errorf("metadata: unsupported frame version %d", frame)
	}
	if key > 0x7fff || version > 0x7fff {
		return nil, errors.New("metadata: api key or version too large")
	}
	k, v := int16(key), int16(version)
	rec := newRecord(k, v)
	if rec == nil {
		u := &UnknownRecord{Key: k, Version: v}
		u.readBody(r)
		return u, nil
	}
	if v > maxVersion[k] {
		return nil, fmt.Errorf("metadata: record type %d version %d is newer than supported %d", k, v, maxVersion[k])
	}
	rec.readBody(r)
	if r.err != nil {
		return nil, fmt.Errorf("metadata: record type %d v%d: %w", k, v, r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("metadata: %d byte(s) of garbage after record type %d", len(r.b), k)
	}
	return rec, nil
}
