package metadata

// API keys of the SCRAM credential records.
const (
	KeyUserScramCredential       int16 = 11
	KeyRemoveUserScramCredential int16 = 22
)

// UserScramCredentialRecord is one user's credential for one SCRAM
// mechanism (v0, flexible), as Kafka's ScramControlManager writes it.
type UserScramCredentialRecord struct {
	Version    int16
	Name       string
	Mechanism  int8
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int32
}

func (u *UserScramCredentialRecord) APIKey() int16        { return KeyUserScramCredential }
func (u *UserScramCredentialRecord) RecordVersion() int16 { return u.Version }

func (u *UserScramCredentialRecord) appendBody(b []byte) []byte {
	b = appendCompactString(b, u.Name)
	b = appendInt8(b, u.Mechanism)
	b = appendCompactBytes(b, u.Salt)
	b = appendCompactBytes(b, u.StoredKey)
	b = appendCompactBytes(b, u.ServerKey)
	b = appendInt32(b, u.Iterations)
	return appendTagged(b, nil)
}

func (u *UserScramCredentialRecord) readBody(r *reader) {
	u.Name = r.compactString()
	u.Mechanism = r.int8()
	u.Salt = r.compactBytes()
	u.StoredKey = r.compactBytes()
	u.ServerKey = r.compactBytes()
	u.Iterations = r.int32()
	r.skipTagged()
}

// RemoveUserScramCredentialRecord removes one user's credential for one
// mechanism (v0, flexible).
type RemoveUserScramCredentialRecord struct {
	Version   int16
	Name      string
	Mechanism int8
}

func (u *RemoveUserScramCredentialRecord) APIKey() int16        { return KeyRemoveUserScramCredential }
func (u *RemoveUserScramCredentialRecord) RecordVersion() int16 { return u.Version }

func (u *RemoveUserScramCredentialRecord) appendBody(b []byte) []byte {
	b = appendCompactString(b, u.Name)
	b = appendInt8(b, u.Mechanism)
	return appendTagged(b, nil)
}

func (u *RemoveUserScramCredentialRecord) readBody(r *reader) {
	u.Name = r.compactString()
	u.Mechanism = r.int8()
	r.skipTagged()
}

func appendCompactBytes(b, v []byte) []byte {
	b = appendUvarint(b, uint64(len(v))+1)
	return append(b, v...)
}

func (r *reader) compactBytes() []byte {
	n := r.compactLen()
	if n < 0 {
		r.fail(errNullBytes)
		return nil
	}
	return append([]byte{}, r.take(n)...)
}
