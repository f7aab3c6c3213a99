package metadata

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// KRaft control records. They live in control batches (attribute bit 5) of
// __cluster_metadata and of snapshot files. Unlike metadata records they
// have no frame: the record key is (int16 key version 0, int16 type) and
// the value is the message body at the version the reader assumes (Kafka's
// ControlRecordUtils: 0 for all of them in 4.1).

// ControlType is ControlRecordType in Kafka.
type ControlType int16

const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

// ControlKey is the 4-byte key of a control record.
func ControlKey(t ControlType) []byte {
	return binary.BigEndian.AppendUint16([]byte{0, 0}, uint16(t))
}

// ParseControlKey returns the type in a control record key. Like Kafka it
// accepts any non-negative key version and reads the type after it.
func ParseControlKey(key []byte) (ControlType, error) {
	if len(key) < 4 {
		return 0, fmt.Errorf("metadata: control record key of %d bytes, need 4", len(key))
	}
	if int16(binary.BigEndian.Uint16(key)) < 0 {
		return 0, errors.New("metadata: negative control record key version")
	}
	return ControlType(binary.BigEndian.Uint16(key[2:])), nil
}

// ControlRecord is the value of one control record.
type ControlRecord interface {
	ControlType() ControlType
	appendBody(b []byte) []byte
	readBody(r *reader)
}

// EncodeControl returns the value bytes of a control record.
func EncodeControl(c ControlRecord) []byte { return c.appendBody(nil) }

// DecodeControl parses a control record value of the given type.
func DecodeControl(t ControlType, value []byte) (ControlRecord, error) {
	var c ControlRecord
	switch t {
	case ControlLeaderChange:
		c = &LeaderChangeMessage{}
	case ControlSnapshotHeader:
		c = &SnapshotHeaderRecord{}
	case ControlSnapshotFooter:
		c = &SnapshotFooterRecord{}
	case ControlKRaftVersion:
		c = &KRaftVersionRecord{}
	case ControlKRaftVoters:
		c = &VotersRecord{}
	default:
		return nil, fmt.Errorf("metadata: unsupported control record type %d", t)
	}
	r := &reader{b: value}
	c.readBody(r)
	if r.err != nil {
		return nil, fmt.Errorf("metadata: control record type %d: %w", t, r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("metadata: %d byte(s) of garbage after control record type %d", len(r.b), t)
	}
	return c, nil
}

// Voter is one member of LeaderChangeMessage's voter lists.
// VoterDirectoryID exists in LeaderChangeMessage v1 only; Kafka 4.1 writes
// and reads v0.
type Voter struct {
	VoterID          int32
	VoterDirectoryID UUID
}

// LeaderChangeMessage is the first record a KRaft leader appends in its
// epoch.
type LeaderChangeMessage struct {
	Version        int16 // the message's own Version field, also its schema version
	LeaderID       int32
	Voters         []Voter
	GrantingVoters []Voter
}

func (m *LeaderChangeMessage) ControlType() ControlType { return ControlLeaderChange }

func (m *LeaderChangeMessage) appendBody(b []byte) []byte {
	b = appendInt16(b, m.Version)
	b = appendInt32(b, m.LeaderID)
	b = m.appendVoters(b, m.Voters)
	b = m.appendVoters(b, m.GrantingVoters)
	return appendTagged(b, nil)
}

func (m *LeaderChangeMessage) appendVoters(b []byte, vs []Voter) []byte {
	b = appendUvarint(b, uint64(len(vs))+1)
	for _, v := range vs {
		b = appendInt32(b, v.VoterID)
		if m.Version >= 1 {
			b = appendUUID(b, v.VoterDirectoryID)
		}
		b = appendTagged(b, nil)
	}
	return b
}

// readBody reads the schema version given by the Version field: Kafka
// always reads v0 (ignoring a v1 directory id would misalign), so a
// Version above 1 is rejected rather than guessed.
func (m *LeaderChangeMessage) readBody(r *reader) {
	m.Version = r.int16()
	if r.err == nil && (m.Version < 0 || m.Version > 1) {
		r.fail(fmt.Errorf("metadata: LeaderChangeMessage version %d", m.Version))
		return
	}
	m.LeaderID = r.int32()
	m.Voters = m.readVoters(r)
	m.GrantingVoters = m.readVoters(r)
	r.skipTagged()
}

func (m *LeaderChangeMessage) readVoters(r *reader) []Voter {
	n := r.arrayLen(5)
	if n < 0 {
		r.fail(errNullArray)
	}
	var out []Voter
	for i := 0; i < n && r.err == nil; i++ {
		v := Voter{VoterID: r.int32()}
		if m.Version >= 1 {
			v.VoterDirectoryID = r.uuid()
		}
		r.skipTagged()
		out = append(out, v)
	}
	return out
}

// SnapshotHeaderRecord opens every snapshot (and bootstrap.checkpoint).
type SnapshotHeaderRecord struct {
	Version                   int16
	LastContainedLogTimestamp int64
}

func (h *SnapshotHeaderRecord) ControlType() ControlType { return ControlSnapshotHeader }

func (h *SnapshotHeaderRecord) appendBody(b []byte) []byte {
	return appendTagged(appendInt64(appendInt16(b, h.Version), h.LastContainedLogTimestamp), nil)
}

func (h *SnapshotHeaderRecord) readBody(r *reader) {
	h.Version = r.int16()
	h.LastContainedLogTimestamp = r.int64()
	r.skipTagged()
}

// SnapshotFooterRecord closes every snapshot.
type SnapshotFooterRecord struct{ Version int16 }

func (f *SnapshotFooterRecord) ControlType() ControlType { return ControlSnapshotFooter }

func (f *SnapshotFooterRecord) appendBody(b []byte) []byte {
	return appendTagged(appendInt16(b, f.Version), nil)
}

func (f *SnapshotFooterRecord) readBody(r *reader) {
	f.Version = r.int16()
	r.skipTagged()
}

// KRaftVersionRecord sets kraft.version (KIP-853).
type KRaftVersionRecord struct {
	Version      int16
	KRaftVersion int16
}

func (k *KRaftVersionRecord) ControlType() ControlType { return ControlKRaftVersion }

func (k *KRaftVersionRecord) appendBody(b []byte) []byte {
	return appendTagged(appendInt16(appendInt16(b, k.Version), k.KRaftVersion), nil)
}

func (k *KRaftVersionRecord) readBody(r *reader) {
	k.Version = r.int16()
	k.KRaftVersion = r.int16()
	r.skipTagged()
}

// VoterEndpoint is a listener of a voter.
type VoterEndpoint struct {
	Name string
	Host string
	Port uint16
}

// VoterInfo is one voter of a VotersRecord.
type VoterInfo struct {
	VoterID          int32
	VoterDirectoryID UUID
	Endpoints        []VoterEndpoint
	MinKRaftVersion  int16
	MaxKRaftVersion  int16
}

// VotersRecord is the voter set of a dynamic quorum (KIP-853).
type VotersRecord struct {
	Version int16
	Voters  []VoterInfo
}

func (v *VotersRecord) ControlType() ControlType { return ControlKRaftVoters }

// EndpointsOf returns the listeners of voter id, if it is a voter.
func (v *VotersRecord) EndpointsOf(id int32) ([]VoterEndpoint, bool) {
	for _, vi := range v.Voters {
		if vi.VoterID == id {
			return vi.Endpoints, true
		}
	}
	return nil, false
}

func (v *VotersRecord) appendBody(b []byte) []byte {
	b = appendInt16(b, v.Version)
	b = appendUvarint(b, uint64(len(v.Voters))+1)
	for _, vi := range v.Voters {
		b = appendInt32(b, vi.VoterID)
		b = appendUUID(b, vi.VoterDirectoryID)
		b = appendUvarint(b, uint64(len(vi.Endpoints))+1)
		for _, e := range vi.Endpoints {
			b = appendCompactString(b, e.Name)
			b = appendCompactString(b, e.Host)
			b = appendInt16(b, int16(e.Port))
			b = appendTagged(b, nil)
		}
		// KRaftVersionFeature is an inline struct with its own tag section.
		b = appendInt16(b, vi.MinKRaftVersion)
		b = appendInt16(b, vi.MaxKRaftVersion)
		b = appendTagged(b, nil)
		b = appendTagged(b, nil)
	}
	return appendTagged(b, nil)
}

func (v *VotersRecord) readBody(r *reader) {
	v.Version = r.int16()
	n := r.arrayLen(4 + 16 + 1 + 5 + 1)
	if n < 0 {
		r.fail(errNullArray)
	}
	for i := 0; i < n && r.err == nil; i++ {
		var vi VoterInfo
		vi.VoterID = r.int32()
		vi.VoterDirectoryID = r.uuid()
		m := r.arrayLen(5)
		if m < 0 {
			r.fail(errNullArray)
		}
		for j := 0; j < m && r.err == nil; j++ {
			var e VoterEndpoint
			e.Name = r.compactString()
			e.Host = r.compactString()
			e.Port = r.uint16()
			r.skipTagged()
			vi.Endpoints = append(vi.Endpoints, e)
		}
		vi.MinKRaftVersion = r.int16()
		vi.MaxKRaftVersion = r.int16()
		r.skipTagged()
		r.skipTagged()
		v.Voters = append(v.Voters, vi)
	}
	r.skipTagged()
}
