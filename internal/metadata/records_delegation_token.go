package metadata

// API keys of the delegation token records.
const (
	KeyDelegationToken       int16 = 10
	KeyRemoveDelegationToken int16 = 26
)

// DelegationTokenRecord is a delegation token as Kafka's
// DelegationTokenControlManager writes it when the token is created,
// renewed or given a new expiry (v0, flexible): principals in their
// "Type:Name" form, timestamps in milliseconds. The token's HMAC is not
// stored: every node derives it from delegation.token.secret.key.
type DelegationTokenRecord struct {
	Version             int16
	Owner               string
	Requester           string
	Renewers            []string
	IssueTimestamp      int64
	MaxTimestamp        int64
	ExpirationTimestamp int64
	TokenID             string
}

func (d *DelegationTokenRecord) APIKey() int16        { return KeyDelegationToken }
func (d *DelegationTokenRecord) RecordVersion() int16 { return d.Version }

func (d *DelegationTokenRecord) appendBody(b []byte) []byte {
	b = appendCompactString(b, d.Owner)
	b = appendCompactString(b, d.Requester)
	b = appendUvarint(b, uint64(len(d.Renewers))+1)
	for _, r := range d.Renewers {
		b = appendCompactString(b, r)
	}
	b = appendInt64(b, d.IssueTimestamp)
	b = appendInt64(b, d.MaxTimestamp)
	b = appendInt64(b, d.ExpirationTimestamp)
	b = appendCompactString(b, d.TokenID)
	return appendTagged(b, nil)
}

func (d *DelegationTokenRecord) readBody(r *reader) {
	d.Owner = r.compactString()
	d.Requester = r.compactString()
	// Each renewer takes at least its length byte.
	n := r.arrayLen(1)
	if n < 0 {
		r.fail(errNullArray)
	}
	d.Renewers = make([]string, 0, max(n, 0))
	for i := 0; i < n && r.err == nil; i++ {
		d.Renewers = append(d.Renewers, r.compactString())
	}
	d.IssueTimestamp = r.int64()
	d.MaxTimestamp = r.int64()
	d.ExpirationTimestamp = r.int64()
	d.TokenID = r.compactString()
	r.skipTagged()
}

// RemoveDelegationTokenRecord removes an expired or expired-by-request
// token (v0, flexible).
type RemoveDelegationTokenRecord struct {
	Version int16
	TokenID string
}

func (d *RemoveDelegationTokenRecord) APIKey() int16        { return KeyRemoveDelegationToken }
func (d *RemoveDelegationTokenRecord) RecordVersion() int16 { return d.Version }

func (d *RemoveDelegationTokenRecord) appendBody(b []byte) []byte {
	b = appendCompactString(b, d.TokenID)
	return appendTagged(b, nil)
}

func (d *RemoveDelegationTokenRecord) readBody(r *reader) {
	d.TokenID = r.compactString()
	r.skipTagged()
}
