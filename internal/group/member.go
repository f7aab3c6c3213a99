package group

import "time"

// member is one member of a classic group.
type member struct {
	id         string
	instanceID *string
	clientID   string
	clientHost string

	protocolType     string
	protocols        []Protocol
	sessionTimeout   time.Duration
	rebalanceTimeout time.Duration
	assignment       []byte

	// join is set while the member waits for its JoinGroup answer, sync
	// while it waits for its SyncGroup answer; each gets exactly one.
	join chan JoinResult
	sync chan SyncResult
	// isNew: joined without an id and has not finished a rebalance; such
	// members time out after NewMemberJoinTimeout rather than being kept
	// alive by waiting.
	isNew bool
	// deadline is when the member expires without a heartbeat.
	deadline time.Time
}

func (m *member) awaitingJoin() bool { return m.join != nil }
func (m *member) awaitingSync() bool { return m.sync != nil }

// metadataFor returns the member's metadata for protocol name.
func (m *member) metadataFor(name string) []byte {
	for _, p := range m.protocols {
		if p.Name == name {
			return p.Metadata
		}
	}
	return nil
}

// vote is the member's most preferred protocol among candidates.
func (m *member) vote(candidates map[string]bool) string {
	for _, p := range m.protocols {
		if candidates[p.Name] {
			return p.Name
		}
	}
	return ""
}

func (m *member) respondJoin(r JoinResult) {
	if m.join != nil {
		m.join <- r
		m.join = nil
	}
}

func (m *member) respondSync(r SyncResult) {
	if m.sync != nil {
		m.sync <- r
		m.sync = nil
	}
}

// propagateSync answers the member's waiting SyncGroup with the outcome
// of its generation's assignment (the assignment, or the error that sends
// it back to JoinGroup) and starts its session again from there, as
// Kafka's propagateAssignment does: a member that waited for the leader
// longer than its session timeout is not expired for the wait. It
// reports whether the member was waiting.
func (g *classicGroup) propagateSync(m *member, r SyncResult, now time.Time) bool {
	if !m.awaitingSync() {
		return false
	}
	m.respondSync(r)
	m.deadline = now.Add(m.sessionTimeout)
	g.armMember(m)
	return true
}

func sameProtocols(a, b []Protocol) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || string(a[i].Metadata) != string(b[i].Metadata) {
			return false
		}
	}
	return true
}
