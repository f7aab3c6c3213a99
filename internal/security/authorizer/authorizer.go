package authorizer

import (
	"strings"

	"github.com/karst-broker/karst/internal/metadata"
)

// wildcardPrincipal is the principal an ACL names to cover every user
// (StandardAuthorizerData.WILDCARD_KAFKA_PRINCIPAL).
const wildcardPrincipal = "User:*"

// Settings are the authorizer's broker keys.
type Settings struct {
	// SuperUsers are the principals of super.users ("User:admin;User:ops").
	SuperUsers []string
	// AllowIfNoACL is allow.everyone.if.no.acl.found.
	AllowIfNoACL bool
}

// ParseSuperUsers splits super.users, semicolon-separated as Kafka reads it.
func ParseSuperUsers(value string) []string {
	var out []string
	for _, p := range strings.Split(value, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Authorizer answers authorization questions against one set of ACLs.
type Authorizer struct {
	superUsers   map[string]bool
	allowIfNoACL bool
	byType       map[int8]*resourceACLs
}

// resourceACLs are one resource type's ACLs, indexed so that a check
// looks up the literal name, the wildcard and each prefix of the name
// instead of scanning every ACL.
type resourceACLs struct {
	literal  map[string][]metadata.ACL
	prefixed map[string][]metadata.ACL
	// longestPrefix bounds the prefixes worth looking up.
	longestPrefix int
}

// New returns an authorizer over acls.
func New(s Settings, acls []metadata.ACL) *Authorizer {
	a := &Authorizer{superUsers: map[string]bool{}, allowIfNoACL: s.AllowIfNoACL, byType: map[int8]*resourceACLs{}}
	for _, u := range s.SuperUsers {
		a.superUsers[u] = true
	}
	for _, acl := range acls {
		r := a.byType[acl.ResourceType]
		if r == nil {
			r = &resourceACLs{literal: map[string][]metadata.ACL{}, prefixed: map[string][]metadata.ACL{}}
			a.byType[acl.ResourceType] = r
		}
		switch acl.PatternType {
		case metadata.PatternLiteral:
			r.literal[acl.ResourceName] = append(r.literal[acl.ResourceName], acl)
		case metadata.PatternPrefixed:
			r.prefixed[acl.ResourceName] = append(r.prefixed[acl.ResourceName], acl)
			r.longestPrefix = max(r.longestPrefix, len(acl.ResourceName))
		}
	}
	return a
}

// Action is one operation on one resource, by Kafka's codes.
type Action struct {
	Operation    int8
	ResourceType int8
	ResourceName string
}

// Authorize reports whether principal ("Type:Name"), connected from host
// (an address), may perform the action.
func (a *Authorizer) Authorize(principal, host string, act Action) bool {
	return a.Decide(principal, host, act).Allowed
}

// Decision is an authorization's result and the rule that decided it,
// as StandardAuthorizerData's MatchingRule.
type Decision struct {
	Allowed bool
	rule    ruleKind
	acl     metadata.ACL // the deciding ACL of a ruleMatchingACL
}

type ruleKind int8

const (
	ruleDefault ruleKind = iota // no ACL allowed or denied: DefaultAllow or DefaultDeny
	ruleSuperUser
	ruleMatchingACL
)

// Rule is the decision's rule as Kafka's audit line names it after "based
// on rule": "SuperUser", "DefaultDeny", "DefaultAllow" or
// "MatchingAcl(acl=StandardAcl[...])". It is built only when asked for.
func (d Decision) Rule() string {
	switch d.rule {
	case ruleSuperUser:
		return "SuperUser"
	case ruleMatchingACL:
		acl := d.acl
		return "MatchingAcl(acl=StandardAcl[resourceType=" + metadata.ResourceTypeName(acl.ResourceType) +
			", resourceName=" + acl.ResourceName + ", patternType=" + metadata.PatternTypeName(acl.PatternType) +
			", principal=" + acl.Principal + ", host=" + acl.Host + ", operation=" + metadata.OperationName(acl.Operation) +
			", permissionType=" + metadata.PermissionTypeName(acl.PermissionType) + "])"
	}
	if d.Allowed {
		return "DefaultAllow"
	}
	return "DefaultDeny"
}

// Decide is Authorize with the deciding rule: a DENY that applies decides
// at once; else the first ALLOW that applies; else, with no ACL on the
// resource at all, allow.everyone.if.no.acl.found.
func (a *Authorizer) Decide(principal, host string, act Action) Decision {
	if a.superUsers[principal] {
		return Decision{Allowed: true, rule: ruleSuperUser}
	}
	r := a.byType[act.ResourceType]
	if r == nil {
		return Decision{Allowed: a.allowIfNoACL}
	}
	var found bool
	var allow, deny *metadata.ACL
	check := func(acls []metadata.ACL) (denied bool) {
		for i := range acls {
			found = true
			switch result(acls[i], principal, host, act.Operation) {
			case metadata.PermissionDeny:
				deny = &acls[i]
				return true
			case metadata.PermissionAllow:
				if allow == nil {
					allow = &acls[i]
				}
			}
		}
		return false
	}
	denied := check(r.literal[act.ResourceName]) || (act.ResourceName != metadata.ACLWildcard && check(r.literal[metadata.ACLWildcard]))
	for n := min(len(act.ResourceName), r.longestPrefix); n > 0 && !denied; n-- {
		denied = check(r.prefixed[act.ResourceName[:n]])
	}
	switch {
	case denied:
		return Decision{rule: ruleMatchingACL, acl: *deny}
	case allow != nil:
		return Decision{Allowed: true, rule: ruleMatchingACL, acl: *allow}
	case !found:
		return Decision{Allowed: a.allowIfNoACL}
	}
	return Decision{}
}

// result is what one ACL says about an action: PermissionDeny,
// PermissionAllow, or PermissionUnknown when it does not apply, as
// StandardAuthorizerData.findResult.
func result(acl metadata.ACL, principal, host string, op int8) int8 {
	if acl.Principal != principal && acl.Principal != wildcardPrincipal {
		return metadata.PermissionUnknown
	}
	if !acl.HostMatches(host) {
		return metadata.PermissionUnknown
	}
	if acl.Operation != metadata.OpAll && acl.Operation != op {
		if acl.PermissionType != metadata.PermissionAllow || !implies(acl.Operation, op) {
			return metadata.PermissionUnknown
		}
	}
	return acl.PermissionType
}

// implies reports whether an ALLOW for granted also allows op: READ,
// WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies
// DESCRIBE_CONFIGS.
func implies(granted, op int8) bool {
	switch op {
	case metadata.OpDescribe:
		return granted == metadata.OpRead || granted == metadata.OpWrite || granted == metadata.OpDelete || granted == metadata.OpAlter
	case metadata.OpDescribeConfigs:
		return granted == metadata.OpAlterConfigs
	}
	return false
}

// HardcodedName is the resource name Kafka's Authorizer.authorizeByResourceType
// asks about first, so that super users and allow.everyone.if.no.acl.found
// are answered as for any one resource; that question is the one its
// audit log shows.
const HardcodedName = "hardcode"

// AuthorizeByResourceType reports whether principal may perform op on at
// least one resource of the type, as Kafka's default
// Authorizer.authorizeByResourceType: an ALLOW (of op itself or ALL, from
// the exact host or "*") on a pattern that no DENY covers, where a DENY on
// the literal wildcard refuses every resource. InitProducerId asks it
// (WRITE on any topic stands in for IDEMPOTENT_WRITE).
func (a *Authorizer) AuthorizeByResourceType(principal, host string, op, resourceType int8) bool {
	if a.Authorize(principal, host, Action{Operation: op, ResourceType: resourceType, ResourceName: HardcodedName}) {
		return true
	}
	r := a.byType[resourceType]
	if r == nil {
		return false
	}
	applies := func(acl metadata.ACL) bool {
		return (acl.Host == host || acl.Host == metadata.ACLWildcard) &&
			(acl.Principal == principal || acl.Principal == wildcardPrincipal) &&
			(acl.Operation == op || acl.Operation == metadata.OpAll)
	}
	denyLiteral, denyPrefixed := map[string]bool{}, map[string]bool{}
	var allowLiteral, allowPrefixed []string
	collect := func(acls map[string][]metadata.ACL, literal bool) (wildcardDeny, wildcardAllow bool) {
		for name, list := range acls {
			for _, acl := range list {
				if !applies(acl) {
					continue
				}
				switch {
				case acl.PermissionType == metadata.PermissionDeny && literal:
					if name == metadata.ACLWildcard {
						wildcardDeny = true
					}
					denyLiteral[name] = true
				case acl.PermissionType == metadata.PermissionDeny:
					denyPrefixed[name] = true
				case acl.PermissionType == metadata.PermissionAllow && literal:
					if name == metadata.ACLWildcard {
						wildcardAllow = true
					}
					allowLiteral = append(allowLiteral, name)
				case acl.PermissionType == metadata.PermissionAllow:
					allowPrefixed = append(allowPrefixed, name)
				}
			}
		}
		return wildcardDeny, wildcardAllow
	}
	wildcardDeny, wildcardAllow := collect(r.literal, true)
	if wildcardDeny {
		return false
	}
	collect(r.prefixed, false)
	if wildcardAllow {
		return true
	}
	dominated := func(name string) bool {
		for n := 1; n <= len(name); n++ {
			if denyPrefixed[name[:n]] {
				return true
			}
		}
		return false
	}
	for _, name := range allowLiteral {
		if !denyLiteral[name] && !dominated(name) {
			return true
		}
	}
	for _, name := range allowPrefixed {
		if !dominated(name) {
			return true
		}
	}
	return false
}
