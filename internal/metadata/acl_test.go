package metadata

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func allowRead(resourceType int8, name string, pattern int8) ACL {
	return ACL{ResourceType: resourceType, ResourceName: name, PatternType: pattern, Principal: "User:alice", Host: "*",
		Operation: OpRead, PermissionType: PermissionAllow}
}

func TestACLCreateReplayDeleteAndSnapshot(t *testing.T) {
	img := scramImage(t)
	acls := []ACL{
		allowRead(ResourceTopic, "orders", PatternLiteral),
		allowRead(ResourceTopic, "ord", PatternPrefixed),
		allowRead(ResourceTopic, "*", PatternLiteral),
		allowRead(ResourceGroup, "g", PatternLiteral),
		{ResourceType: ResourceCluster, ResourceName: ClusterResourceName, PatternType: PatternLiteral, Principal: "User:bob",
			Host: "10.0.0.0/8", Operation: OpAlter, PermissionType: PermissionDeny},
		allowRead(ResourceTopic, "orders", PatternLiteral), // a repeat succeeds without a second record
	}
	recs, results := img.CreateACLs(acls)
	for i, err := range results {
		if err != nil {
			t.Fatalf("acl %d: %v", i, err)
		}
	}
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	img, err := img.Replay(recs...)
	if err != nil {
		t.Fatal(err)
	}
	if recs, _ := img.CreateACLs(acls[:1]); len(recs) != 0 {
		t.Fatalf("an existing ACL made records %+v", recs)
	}

	name := func(s string) *string { return &s }
	match := ACLFilter{ResourceType: ResourceTopic, ResourceName: name("orders"), PatternType: PatternMatch, Operation: OpAny, PermissionType: PermissionAny}
	if got := img.ACLs(match); len(got) != 3 {
		t.Fatalf("MATCH orders: %+v, want the literal, the prefix and the wildcard", got)
	}
	anyPattern := match
	anyPattern.PatternType = PatternAny
	if got := img.ACLs(anyPattern); len(got) != 1 || got[0].PatternType != PatternLiteral {
		t.Fatalf("ANY orders: %+v, want only the literal", got)
	}
	prefixed := ACLFilter{ResourceType: ResourceAny, PatternType: PatternPrefixed, Operation: OpAny, PermissionType: PermissionAny}
	if got := img.ACLs(prefixed); len(got) != 1 || got[0].ResourceName != "ord" {
		t.Fatalf("PREFIXED: %+v", got)
	}
	everything := ACLFilter{ResourceType: ResourceAny, PatternType: PatternAny, Operation: OpAny, PermissionType: PermissionAny}
	if got := img.ACLs(everything); len(got) != 5 {
		t.Fatalf("ANY: %d ACLs", len(got))
	}

	restored, err := EmptyImage().Replay(img.Records()...)
	if err != nil || restored.ACLCount() != 5 {
		t.Fatalf("restored %d ACLs, %v", restored.ACLCount(), err)
	}

	denies := everything
	denies.PermissionType = PermissionDeny
	unknown := everything
	unknown.Operation = OpUnknown
	recs, deleted := img.DeleteACLs([]ACLFilter{match, anyPattern, denies, unknown})
	if len(recs) != 4 || len(deleted[0].Deleted) != 3 || len(deleted[1].Deleted) != 1 || len(deleted[2].Deleted) != 1 {
		t.Fatalf("delete: %d records, results %+v", len(recs), deleted)
	}
	if !errors.Is(deleted[3].Err, kerr.InvalidRequest) || deleted[3].Err.Message != "Unknown entryFilter." {
		t.Fatalf("an UNKNOWN operation filter: %v", deleted[3].Err)
	}
	img, err = img.Replay(recs...)
	if err != nil || img.ACLCount() != 1 || img.ACLs(everything)[0].ResourceType != ResourceGroup {
		t.Fatalf("after delete: %+v %v", img.ACLs(everything), err)
	}
}

func TestACLValidation(t *testing.T) {
	img := scramImage(t)
	good := allowRead(ResourceTopic, "t", PatternLiteral)
	with := func(change func(*ACL)) ACL { a := good; change(&a); return a }
	for _, c := range []struct {
		acl  ACL
		code *kerr.Error
		msg  string
	}{
		{with(func(a *ACL) { a.ResourceType = ResourceCluster }), kerr.InvalidRequest, "The only valid name for the CLUSTER resource is kafka-cluster"},
		{with(func(a *ACL) { a.ResourceName = "" }), kerr.InvalidRequest, "Invalid empty resource name"},
		{with(func(a *ACL) { a.ResourceType = ResourceAny }), kerr.InvalidRequest, "Invalid resourceType ANY"},
		{with(func(a *ACL) { a.ResourceType = 42 }), kerr.InvalidRequest, "Invalid resourceType UNKNOWN"},
		{with(func(a *ACL) { a.PatternType = PatternMatch }), kerr.InvalidRequest, "Invalid patternType MATCH"},
		{with(func(a *ACL) { a.Operation = OpAny }), kerr.InvalidRequest, "Invalid operation ANY"},
		{with(func(a *ACL) { a.PermissionType = PermissionAny }), kerr.InvalidRequest, "Invalid permissionType ANY"},
		{with(func(a *ACL) { a.Principal = "alice" }), kerr.InvalidRequest,
			"Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)"},
		{with(func(a *ACL) { a.Host = "" }), kerr.InvalidRequest, "Host pattern cannot be null or empty"},
		{with(func(a *ACL) { a.Host = "10.0.0.0/33" }), kerr.InvalidRequest, ""},
		{with(func(a *ACL) { a.Host = "10.1.2.3" }), nil, ""},
		{with(func(a *ACL) { a.Host = "fd00::/8" }), nil, ""},
	} {
		_, results := img.CreateACLs([]ACL{c.acl})
		err := results[0]
		if c.code == nil {
			if err != nil {
				t.Errorf("%+v: %v", c.acl, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, c.code) || (c.msg != "" && err.Message != c.msg) {
			t.Errorf("%+v: got %v, want %s %q", c.acl, err, c.code.Message, c.msg)
		}
	}

	old, err := EmptyImage().Replay(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: metadataVersionCIDRACLs - 1})
	if err != nil {
		t.Fatal(err)
	}
	_, results := old.CreateACLs([]ACL{with(func(a *ACL) { a.Host = "10.0.0.0/8" })})
	if !errors.Is(results[0], kerr.UnsupportedVersion) {
		t.Fatalf("a CIDR host at 4.4-IV0: %v", results[0])
	}
}

func TestACLHostMatches(t *testing.T) {
	for _, c := range []struct {
		host, client string
		want         bool
	}{
		{"*", "192.0.2.1", true},
		{"192.0.2.1", "192.0.2.1", true},
		{"192.0.2.1", "192.0.2.2", false},
		{"192.0.2.0/24", "192.0.2.0", true},   // the network address counts (inclusive)
		{"192.0.2.0/24", "192.0.2.255", true}, // and so does the broadcast address
		{"192.0.2.0/24", "192.0.3.1", false},
		{"192.0.2.7/32", "192.0.2.7", true},
		{"2001:db8::/32", "2001:db8::1", true},
		{"2001:db8::/32", "192.0.2.1", false},
		{"192.0.2.0/24", "not-an-address", false},
	} {
		if got := (ACL{Host: c.host}).HostMatches(c.client); got != c.want {
			t.Errorf("%s covers %s: %v, want %v", c.host, c.client, got, c.want)
		}
	}
}
