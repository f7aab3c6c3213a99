package metadata

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// metadataVersionCIDRACLs is 4.4-IV1, the first metadata.version whose
// ACLs may name hosts by CIDR (KIP-1276, MetadataVersion.isCidrAclSupported).
const metadataVersionCIDRACLs int16 = 32

// Kafka's ResourceType codes.
const (
	ResourceUnknown         int8 = 0
	ResourceAny             int8 = 1
	ResourceTopic           int8 = 2
	ResourceGroup           int8 = 3
	ResourceCluster         int8 = 4
	ResourceTransactionalID int8 = 5
	ResourceDelegationToken int8 = 6
	ResourceUser            int8 = 7
)

// Kafka's PatternType codes.
const (
	PatternUnknown  int8 = 0
	PatternAny      int8 = 1
	PatternMatch    int8 = 2
	PatternLiteral  int8 = 3
	PatternPrefixed int8 = 4
)

// Kafka's AclOperation codes.
const (
	OpUnknown         int8 = 0
	OpAny             int8 = 1
	OpAll             int8 = 2
	OpRead            int8 = 3
	OpWrite           int8 = 4
	OpCreate          int8 = 5
	OpDelete          int8 = 6
	OpAlter           int8 = 7
	OpDescribe        int8 = 8
	OpClusterAction   int8 = 9
	OpDescribeConfigs int8 = 10
	OpAlterConfigs    int8 = 11
	OpIdempotentWrite int8 = 12
	OpCreateTokens    int8 = 13
	OpDescribeTokens  int8 = 14
	OpTwoPhaseCommit  int8 = 15
)

// Kafka's AclPermissionType codes.
const (
	PermissionUnknown int8 = 0
	PermissionAny     int8 = 1
	PermissionDeny    int8 = 2
	PermissionAllow   int8 = 3
)

// ClusterResourceName is the one name of the CLUSTER resource.
const ClusterResourceName = "kafka-cluster"

// ACLWildcard is the resource name, and the host, that match every one.
const ACLWildcard = "*"

var (
	resourceTypeNames = []string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"}
	patternTypeNames  = []string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}
	operationNames    = []string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION",
		"DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT"}
	permissionTypeNames = []string{"UNKNOWN", "ANY", "DENY", "ALLOW"}
)

// OperationName is an AclOperation code's name ("WRITE"), UNKNOWN for a
// code Kafka does not define.
func OperationName(code int8) string { return operationNames[known(code, operationNames)] }

// ResourceTypeName is a ResourceType code's name ("TOPIC"), UNKNOWN for a
// code Kafka does not define.
func ResourceTypeName(code int8) string { return resourceTypeNames[known(code, resourceTypeNames)] }

// PatternTypeName is a PatternType code's name ("LITERAL").
func PatternTypeName(code int8) string { return patternTypeNames[known(code, patternTypeNames)] }

// PermissionTypeName is an AclPermissionType code's name ("DENY").
func PermissionTypeName(code int8) string {
	return permissionTypeNames[known(code, permissionTypeNames)]
}

// known maps a code Kafka does not define to UNKNOWN (0), as each enum's
// fromCode does.
func known(code int8, names []string) int8 {
	if code < 0 || int(code) >= len(names) {
		return 0
	}
	return code
}

// ACL is one access control entry bound to a resource pattern, Kafka's
// AclBinding, its fields in AccessControlEntryRecord's order. Principal is in "Type:Name" form; Host is "*", an address
// or (from 4.4-IV1) a CIDR block.
type ACL struct {
	ResourceType   int8
	ResourceName   string
	PatternType    int8
	Principal      string
	Host           string
	Operation      int8
	PermissionType int8
}

// ACLFilter selects ACLs, Kafka's AclBindingFilter: ANY codes and nil
// strings match everything; PatternMatch also matches the literal
// wildcard and the prefixed patterns that cover ResourceName.
type ACLFilter struct {
	ResourceType   int8
	ResourceName   *string
	PatternType    int8
	Principal      *string
	Host           *string
	Operation      int8
	PermissionType int8
}

// Matches reports whether a selects acl, as ResourcePatternFilter.matches
// and AccessControlEntryFilter.matches.
func (f ACLFilter) Matches(acl ACL) bool {
	return f.matchesPattern(acl) &&
		(f.Principal == nil || *f.Principal == acl.Principal) &&
		(f.Host == nil || *f.Host == acl.Host) &&
		(f.Operation == OpAny || f.Operation == acl.Operation) &&
		(f.PermissionType == PermissionAny || f.PermissionType == acl.PermissionType)
}

func (f ACLFilter) matchesPattern(acl ACL) bool {
	if f.ResourceType != ResourceAny && f.ResourceType != acl.ResourceType {
		return false
	}
	if f.PatternType != PatternAny && f.PatternType != PatternMatch && f.PatternType != acl.PatternType {
		return false
	}
	if f.ResourceName == nil {
		return true
	}
	name := *f.ResourceName
	if f.PatternType == PatternAny || f.PatternType == acl.PatternType {
		return name == acl.ResourceName
	}
	switch acl.PatternType {
	case PatternLiteral:
		return name == acl.ResourceName || acl.ResourceName == ACLWildcard
	case PatternPrefixed:
		return strings.HasPrefix(name, acl.ResourceName)
	}
	return false
}

// indefinite names the first UNKNOWN field of a filter, as the filters'
// findIndefiniteField, for AclControlManager.validateFilter.
func (f ACLFilter) indefinite() string {
	switch {
	case known(f.ResourceType, resourceTypeNames) == ResourceUnknown || known(f.PatternType, patternTypeNames) == PatternUnknown:
		return "Unknown patternFilter."
	case known(f.Operation, operationNames) == OpUnknown || known(f.PermissionType, permissionTypeNames) == PermissionUnknown:
		return "Unknown entryFilter."
	}
	return ""
}

// HostMatches reports whether an ACL's host covers a client's address:
// the wildcard, the same address, or a CIDR block containing it
// (StandardAuthorizerData with CidrUtils.isInRange, both ends inclusive).
func (a ACL) HostMatches(client string) bool {
	if a.Host == ACLWildcard || a.Host == client {
		return true
	}
	if !strings.Contains(a.Host, "/") {
		return false
	}
	prefix, err := netip.ParsePrefix(a.Host)
	if err != nil {
		return false
	}
	addr, err := netip.ParseAddr(client)
	return err == nil && prefix.Contains(addr)
}

func (a ACL) record(id UUID) *AccessControlEntryRecord {
	return &AccessControlEntryRecord{ID: id, ACL: a}
}

// validate refuses an ACL as the broker's AclApis and the controller's
// AclControlManager.validateNewAcl do, with their messages.
func (a ACL) validate(mv int16) *Error {
	invalid := func(format string, args ...any) *Error {
		return opError(kerr.InvalidRequest, fmt.Sprintf(format, args...))
	}
	rt, pt := known(a.ResourceType, resourceTypeNames), known(a.PatternType, patternTypeNames)
	op, perm := known(a.Operation, operationNames), known(a.PermissionType, permissionTypeNames)
	switch {
	case rt == ResourceCluster && a.ResourceName != ClusterResourceName:
		return invalid("The only valid name for the CLUSTER resource is %s", ClusterResourceName)
	case a.ResourceName == "":
		return invalid("Invalid empty resource name")
	case rt == ResourceUnknown || rt == ResourceAny:
		return invalid("Invalid resourceType %s", resourceTypeNames[rt])
	case pt != PatternLiteral && pt != PatternPrefixed:
		return invalid("Invalid patternType %s", patternTypeNames[pt])
	case op == OpUnknown || op == OpAny:
		return invalid("Invalid operation %s", operationNames[op])
	case perm != PermissionDeny && perm != PermissionAllow:
		return invalid("Invalid permissionType %s", permissionTypeNames[perm])
	case !strings.Contains(a.Principal, ":"):
		return invalid("Could not parse principal from `%s` (no colon is present separating the principal type from the principal name)", a.Principal)
	}
	return validateHostPattern(a.Host, mv >= metadataVersionCIDRACLs)
}

func validateHostPattern(host string, cidrSupported bool) *Error {
	switch {
	case host == "":
		return opError(kerr.InvalidRequest, "Host pattern cannot be null or empty")
	case host == ACLWildcard || !strings.Contains(host, "/"):
		return nil
	case !cidrSupported:
		return opError(kerr.UnsupportedVersion, "CIDR-based ACL host patterns require metadata version 4.4-IV1 or higher.")
	}
	if _, err := netip.ParsePrefix(host); err != nil {
		return opError(kerr.InvalidRequest, fmt.Sprintf("Invalid CIDR notation '%s': %v", host, err))
	}
	return nil
}

// ACLs returns every ACL that f selects, ordered by resource, then entry.
func (img *Image) ACLs(f ACLFilter) []ACL {
	var out []ACL
	for _, a := range img.acls {
		if f.Matches(a) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, compareACLs)
	return out
}

// ACLCount returns the number of ACLs.
func (img *Image) ACLCount() int { return len(img.acls) }

func compareACLs(a, b ACL) int {
	return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), strings.Compare(a.ResourceName, b.ResourceName),
		cmp.Compare(a.PatternType, b.PatternType), strings.Compare(a.Principal, b.Principal), strings.Compare(a.Host, b.Host),
		cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.PermissionType, b.PermissionType))
}

// CreateACLs returns the records of the ACLs to add and one result per
// ACL (nil for success), as AclControlManager.createAcls: an ACL that
// already exists, or that the request repeats, succeeds without a record.
func (img *Image) CreateACLs(acls []ACL) ([]Record, []*Error) {
	existing := make(map[ACL]bool, len(img.acls)+len(acls))
	for _, a := range img.acls {
		existing[a] = true
	}
	var recs []Record
	results := make([]*Error, len(acls))
	for i, a := range acls {
		if err := a.validate(img.MetadataVersion()); err != nil {
			results[i] = err
			continue
		}
		if existing[a] {
			continue
		}
		existing[a] = true
		recs = append(recs, a.record(RandomUUID()))
	}
	return recs, results
}

// maxACLsDeleted is AclControlManager's bound on the ACLs one DeleteAcls
// may remove.
const maxACLsDeleted = 10000

// ACLDeletion is what one DeleteAcls filter removed, or why it failed.
type ACLDeletion struct {
	Err     *Error
	Deleted []ACL
}

// DeleteACLs returns the records removing every ACL any filter selects
// and, per filter, the ACLs it matched, as AclControlManager.deleteAcls:
// an ACL two filters match is listed by both and removed once.
func (img *Image) DeleteACLs(filters []ACLFilter) ([]Record, []ACLDeletion) {
	removed := map[UUID]bool{}
	var recs []Record
	results := make([]ACLDeletion, len(filters))
	ids := slices.SortedFunc(maps.Keys(img.acls), func(a, b UUID) int { return compareACLs(img.acls[a], img.acls[b]) })
	for i, f := range filters {
		if msg := f.indefinite(); msg != "" {
			results[i].Err = opError(kerr.InvalidRequest, msg)
			continue
		}
		for _, id := range ids {
			if !f.Matches(img.acls[id]) {
				continue
			}
			if !removed[id] {
				if len(removed) == maxACLsDeleted {
					return nil, tooManyDeletions(len(filters))
				}
				removed[id] = true
				recs = append(recs, &RemoveAccessControlEntryRecord{ID: id})
			}
			results[i].Deleted = append(results[i].Deleted, img.acls[id])
		}
	}
	return recs, results
}

// tooManyDeletions fails every filter of a DeleteAcls that would remove
// more than maxACLsDeleted ACLs, which Kafka refuses as a whole.
func tooManyDeletions(n int) []ACLDeletion {
	results := make([]ACLDeletion, n)
	for i := range results {
		results[i].Err = opError(kerr.InvalidRequest, fmt.Sprintf("Cannot remove more than %d acls in a single delete operation.", maxACLsDeleted))
	}
	return results
}

func (b *builder) applyAccessControlEntry(r *AccessControlEntryRecord) {
	b.img.acls[r.ID] = r.ACL
}

func (b *builder) applyRemoveAccessControlEntry(r *RemoveAccessControlEntryRecord) error {
	if _, ok := b.img.acls[r.ID]; !ok {
		return fmt.Errorf("unable to remove ACL %s: no ACL with that id", r.ID)
	}
	delete(b.img.acls, r.ID)
	return nil
}

func (img *Image) aclRecords() []Record {
	ids := slices.SortedFunc(maps.Keys(img.acls), func(a, b UUID) int { return compareACLs(img.acls[a], img.acls[b]) })
	out := make([]Record, 0, len(ids))
	for _, id := range ids {
		out = append(out, img.acls[id].record(id))
	}
	return out
}
