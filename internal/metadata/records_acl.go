package metadata

// API keys of the ACL records.
const (
	KeyAccessControlEntry       int16 = 18
	KeyRemoveAccessControlEntry int16 = 19
)

// AccessControlEntryRecord is one ACL as Kafka's AclControlManager writes
// it (v0, flexible): its id, then the ACL's fields in their order.
type AccessControlEntryRecord struct {
	Version int16
	ID      UUID
	ACL
}

func (a *AccessControlEntryRecord) APIKey() int16        { return KeyAccessControlEntry }
func (a *AccessControlEntryRecord) RecordVersion() int16 { return a.Version }

func (a *AccessControlEntryRecord) appendBody(b []byte) []byte {
	b = append(b, a.ID[:]...)
	b = appendInt8(b, a.ResourceType)
	b = appendCompactString(b, a.ResourceName)
	b = appendInt8(b, a.PatternType)
	b = appendCompactString(b, a.Principal)
	b = appendCompactString(b, a.Host)
	b = appendInt8(b, a.Operation)
	b = appendInt8(b, a.PermissionType)
	return appendTagged(b, nil)
}

func (a *AccessControlEntryRecord) readBody(r *reader) {
	a.ID = r.uuid()
	a.ResourceType = r.int8()
	a.ResourceName = r.compactString()
	a.PatternType = r.int8()
	a.Principal = r.compactString()
	a.Host = r.compactString()
	a.Operation = r.int8()
	a.PermissionType = r.int8()
	r.skipTagged()
}

// RemoveAccessControlEntryRecord removes the ACL with an id (v0, flexible).
type RemoveAccessControlEntryRecord struct {
	Version int16
	ID      UUID
}

func (a *RemoveAccessControlEntryRecord) APIKey() int16        { return KeyRemoveAccessControlEntry }
func (a *RemoveAccessControlEntryRecord) RecordVersion() int16 { return a.Version }

func (a *RemoveAccessControlEntryRecord) appendBody(b []byte) []byte {
	b = append(b, a.ID[:]...)
	return appendTagged(b, nil)
}

func (a *RemoveAccessControlEntryRecord) readBody(r *reader) {
	a.ID = r.uuid()
	r.skipTagged()
}
