package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Protocol is one assignment protocol a member supports, with its
// protocol-specific metadata (for "consumer", a subscription).
type Protocol struct {
	Name     string
	Metadata []byte
}

// JoinRequest is a JoinGroup, version differences resolved by the caller.
type JoinRequest struct {
	GroupID    string
	MemberID   string  // "" for a member without an id yet
	InstanceID *string // group.instance.id of a static member
	ClientID   string
	ClientHost string

	ProtocolType     string
	Protocols        []Protocol
	SessionTimeout   time.Duration
	RebalanceTimeout time.Duration
	// RequireKnownMemberID (JoinGroup v4+): a dynamic member joining
	// without an id is given one and MEMBER_ID_REQUIRED, and must join
	// again with it.
	RequireKnownMemberID bool
}

// JoinedMember is a member as the leader learns it, to compute the
// assignment.
type JoinedMember struct {
	MemberID   string
	InstanceID *string
	Metadata   []byte // for the chosen protocol
}

// JoinResult is the answer to a JoinGroup.
type JoinResult struct {
	Err            *kerr.Error
	MemberID       string
	Generation     int32
	ProtocolType   *string
	Protocol       *string
	Leader         string
	SkipAssignment bool
	Members        []JoinedMember // the leader's only
	// Wait, when set, must return before the answer goes out: the
	// group's record naming the member is being written.
	Wait Durable
}

// Assignment is the leader's assignment for one member.
type Assignment struct {
	MemberID   string
	Assignment []byte
}

// SyncRequest is a SyncGroup.
type SyncRequest struct {
	GroupID      string
	MemberID     string
	InstanceID   *string
	Generation   int32
	ProtocolType *string // v5+; nil skips the check
	Protocol     *string // v5+; nil skips the check
	Assignments  []Assignment
}

// SyncResult is the answer to a SyncGroup.
type SyncResult struct {
	Err          *kerr.Error
	ProtocolType *string
	Protocol     *string
	Assignment   []byte
	// Wait, when set, must return before the answer goes out: the group's
	// new generation is being written.
	Wait Durable
}

// MemberIdentity names a member leaving (LeaveGroup v3+ batches them).
type MemberIdentity struct {
	MemberID   string
	InstanceID *string
}

// MemberDescription is a member as DescribeGroups reports it.
type MemberDescription struct {
	MemberID   string
	InstanceID *string
	ClientID   string
	ClientHost string
	Metadata   []byte // for the chosen protocol
	Assignment []byte
}

// Description is a group as DescribeGroups reports it.
type Description struct {
	Err *kerr.Error
	// ErrMessage goes with Err in DescribeGroups v6+.
	ErrMessage   string
	GroupID      string
	State        string
	ProtocolType string
	Protocol     string
	Members      []MemberDescription
}

// Listing is a group as ListGroups reports it.
type Listing struct {
	GroupID      string
	ProtocolType string
	State        string
	Type         string // "classic"
}
