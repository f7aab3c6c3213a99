package metadata

// Broker registration records: RegisterBrokerRecord (0) and
// BrokerRegistrationChangeRecord (17).

// BrokerEndpoint is one listener of a registered broker.
type BrokerEndpoint struct {
	Name             string
	Host             string
	Port             uint16
	SecurityProtocol int16
}

// BrokerFeature is the range of levels a broker supports for a feature.
type BrokerFeature struct {
	Name                string
	MinSupportedVersion int16
	MaxSupportedVersion int16
}

// RegisterBrokerRecord registers a broker incarnation (v0-4):
// InControlledShutdown from v1, IsMigratingZkBroker from v2, LogDirs
// (tag 0) from v3, CordonedLogDirs (tag 1, nullable) from v4 (KIP-1066).
type RegisterBrokerRecord struct {
	Version              int16
	BrokerID             int32
	IsMigratingZkBroker  bool
	IncarnationID        UUID
	BrokerEpoch          int64
	EndPoints            []BrokerEndpoint
	Features             []BrokerFeature
	Rack                 *string
	Fenced               bool
	InControlledShutdown bool
	LogDirs              []UUID
	CordonedLogDirs      []UUID // nil: not yet reported
}

func (rb *RegisterBrokerRecord) APIKey() int16        { return KeyRegisterBroker }
func (rb *RegisterBrokerRecord) RecordVersion() int16 { return rb.Version }

func (rb *RegisterBrokerRecord) appendBody(b []byte) []byte {
	b = appendInt32(b, rb.BrokerID)
	if rb.Version >= 2 {
		b = appendBool(b, rb.IsMigratingZkBroker)
	}
	b = appendUUID(b, rb.IncarnationID)
	b = appendInt64(b, rb.BrokerEpoch)
	b = appendUvarint(b, uint64(len(rb.EndPoints))+1)
	for _, e := range rb.EndPoints {
		b = appendCompactString(b, e.Name)
		b = appendCompactString(b, e.Host)
		b = appendInt16(b, int16(e.Port))
		b = appendInt16(b, e.SecurityProtocol)
		b = appendTagged(b, nil)
	}
	b = appendUvarint(b, uint64(len(rb.Features))+1)
	for _, f := range rb.Features {
		b = appendCompactString(b, f.Name)
		b = appendInt16(b, f.MinSupportedVersion)
		b = appendInt16(b, f.MaxSupportedVersion)
		b = appendTagged(b, nil)
	}
	b = appendCompactNullableString(b, rb.Rack)
	b = appendBool(b, rb.Fenced)
	if rb.Version >= 1 {
		b = appendBool(b, rb.InControlledShutdown)
	}
	var tags []taggedField
	if rb.Version >= 3 && len(rb.LogDirs) > 0 {
		tags = append(tags, taggedField{0, appendCompactUUIDs(nil, rb.LogDirs)})
	}
	if rb.Version >= 4 && rb.CordonedLogDirs != nil {
		tags = append(tags, taggedField{1, appendCompactUUIDs(nil, rb.CordonedLogDirs)})
	}
	return appendTagged(b, tags)
}

func (rb *RegisterBrokerRecord) readBody(r *reader) {
	rb.BrokerID = r.int32()
	if rb.Version >= 2 {
		rb.IsMigratingZkBroker = r.bool()
	}
	rb.IncarnationID = r.uuid()
	rb.BrokerEpoch = r.int64()
	// An endpoint is at least 2+2+2+2+1 bytes, a feature 1+2+2+1.
	n := r.arrayLen(9)
	if n < 0 {
		r.fail(errNullArray)
	}
	for i := 0; i < n && r.err == nil; i++ {
		var e BrokerEndpoint
		e.Name = r.compactString()
		e.Host = r.compactString()
		e.Port = r.uint16()
		e.SecurityProtocol = r.int16()
		r.skipTagged()
		rb.EndPoints = append(rb.EndPoints, e)
	}
	n = r.arrayLen(6)
	if n < 0 {
		r.fail(errNullArray)
	}
	for i := 0; i < n && r.err == nil; i++ {
		var f BrokerFeature
		f.Name = r.compactString()
		f.MinSupportedVersion = r.int16()
		f.MaxSupportedVersion = r.int16()
		r.skipTagged()
		rb.Features = append(rb.Features, f)
	}
	rb.Rack = r.compactNullableString()
	rb.Fenced = r.bool()
	if rb.Version >= 1 {
		rb.InControlledShutdown = r.bool()
	}
	r.tagged(func(tag uint32, fr *reader) bool {
		switch {
		case tag == 0 && rb.Version >= 3:
			rb.LogDirs = fr.compactUUIDs(false)
		case tag == 1 && rb.Version >= 4:
			rb.CordonedLogDirs = fr.compactUUIDs(true)
		default:
			return false
		}
		return true
	})
}

// Values of BrokerRegistrationChangeRecord.Fenced.
const (
	BrokerUnfenced       int8 = -1
	BrokerFenceUnchanged int8 = 0
	BrokerFenced         int8 = 1
)

// BrokerRegistrationChangeRecord changes a registered broker (v0-3): Fenced
// (tag 0), InControlledShutdown (tag 1, v1+), LogDirs (tag 2, v2+),
// CordonedLogDirs (tag 3, v3+, nil = unchanged).
type BrokerRegistrationChangeRecord struct {
	Version              int16
	BrokerID             int32
	BrokerEpoch          int64
	Fenced               int8
	InControlledShutdown int8
	LogDirs              []UUID
	CordonedLogDirs      []UUID
}

func (c *BrokerRegistrationChangeRecord) APIKey() int16        { return KeyBrokerRegistrationChange }
func (c *BrokerRegistrationChangeRecord) RecordVersion() int16 { return c.Version }

func (c *BrokerRegistrationChangeRecord) appendBody(b []byte) []byte {
	b = appendInt32(b, c.BrokerID)
	b = appendInt64(b, c.BrokerEpoch)
	var tags []taggedField
	if c.Fenced != 0 {
		tags = append(tags, taggedField{0, []byte{byte(c.Fenced)}})
	}
	if c.Version >= 1 && c.InControlledShutdown != 0 {
		tags = append(tags, taggedField{1, []byte{byte(c.InControlledShutdown)}})
	}
	if c.Version >= 2 && len(c.LogDirs) > 0 {
		tags = append(tags, taggedField{2, appendCompactUUIDs(nil, c.LogDirs)})
	}
	if c.Version >= 3 && c.CordonedLogDirs != nil {
		tags = append(tags, taggedField{3, appendCompactUUIDs(nil, c.CordonedLogDirs)})
	}
	return appendTagged(b, tags)
}

func (c *BrokerRegistrationChangeRecord) readBody(r *reader) {
	c.BrokerID = r.int32()
	c.BrokerEpoch = r.int64()
	r.tagged(func(tag uint32, fr *reader) bool {
		switch {
		case tag == 0:
			c.Fenced = fr.int8()
		case tag == 1 && c.Version >= 1:
			c.InControlledShutdown = fr.int8()
		case tag == 2 && c.Version >= 2:
			c.LogDirs = fr.compactUUIDs(false)
		case tag == 3 && c.Version >= 3:
			c.CordonedLogDirs = fr.compactUUIDs(true)
		default:
			return false
		}
		return true
	})
}

// UnregisterBrokerRecord removes a broker registration (v0).
type UnregisterBrokerRecord struct {
	Version     int16
	BrokerID    int32
	BrokerEpoch int64
}

func (u *UnregisterBrokerRecord) APIKey() int16        { return KeyUnregisterBroker }
func (u *UnregisterBrokerRecord) RecordVersion() int16 { return u.Version }

func (u *UnregisterBrokerRecord) appendBody(b []byte) []byte {
	return appendTagged(appendInt64(appendInt32(b, u.BrokerID), u.BrokerEpoch), nil)
}

func (u *UnregisterBrokerRecord) readBody(r *reader) {
	u.BrokerID = r.int32()
	u.BrokerEpoch = r.int64()
	r.skipTagged()
}
