package metadata

import "math"

// KeyClientQuota is the api key of ClientQuotaRecord.
const KeyClientQuota int16 = 14

// Quota entity types (ClientQuotaEntity in Kafka).
const (
	QuotaEntityUser     = "user"
	QuotaEntityClientID = "client-id"
	QuotaEntityIP       = "ip"
)

// QuotaEntityData is one component of a quota entity; a nil Name is the
// default entity of its type.
type QuotaEntityData struct {
	Type string
	Name *string
}

// ClientQuotaRecord sets (Remove false) or removes one quota key of one
// entity (v0), exactly as Kafka's ClientQuotaControlManager writes it.
type ClientQuotaRecord struct {
	Version int16
	Entity  []QuotaEntityData
	Key     string
	Value   float64
	Remove  bool
}

func (c *ClientQuotaRecord) APIKey() int16        { return KeyClientQuota }
func (c *ClientQuotaRecord) RecordVersion() int16 { return c.Version }

func (c *ClientQuotaRecord) appendBody(b []byte) []byte {
	b = appendUvarint(b, uint64(len(c.Entity))+1)
	for _, e := range c.Entity {
		b = appendCompactString(b, e.Type)
		b = appendCompactNullableString(b, e.Name)
		b = appendTagged(b, nil)
	}
	b = appendCompactString(b, c.Key)
	b = appendInt64(b, int64(math.Float64bits(c.Value)))
	b = appendBool(b, c.Remove)
	return appendTagged(b, nil)
}

func (c *ClientQuotaRecord) readBody(r *reader) {
	n := r.arrayLen(3)
	if n < 0 {
		r.fail(errNullArray)
		return
	}
	for range n {
		if r.err != nil {
			return
		}
		var e QuotaEntityData
		e.Type = r.compactString()
		e.Name = r.compactNullableString()
		r.skipTagged()
		c.Entity = append(c.Entity, e)
	}
	c.Key = r.compactString()
	c.Value = math.Float64frombits(uint64(r.int64()))
	c.Remove = r.bool()
	r.skipTagged()
}
