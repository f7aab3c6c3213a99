package authorizer

import (
	"fmt"
	"testing"

	"github.com/karst-broker/karst/internal/metadata"
)

func acl(resourceType int8, name string, pattern int8, principal, host string, op, perm int8) metadata.ACL {
	return metadata.ACL{ResourceType: resourceType, ResourceName: name, PatternType: pattern, Principal: principal, Host: host, Operation: op, PermissionType: perm}
}

func topic(op int8, name string) Action {
	return Action{Operation: op, ResourceType: metadata.ResourceTopic, ResourceName: name}
}

func TestStandardAuthorizerRules(t *testing.T) {
	const (
		lit, pre     = metadata.PatternLiteral, metadata.PatternPrefixed
		allow, deny  = metadata.PermissionAllow, metadata.PermissionDeny
		tp, grp      = metadata.ResourceTopic, metadata.ResourceGroup
		alice, bob   = "User:alice", "User:bob"
		here, subnet = "192.0.2.1", "192.0.2.0/24"
	)
	acls := []metadata.ACL{
		acl(tp, "orders", lit, alice, "*", metadata.OpRead, allow),
		acl(tp, "orders", lit, alice, here, metadata.OpWrite, deny),
		acl(tp, "pay", pre, alice, subnet, metadata.OpWrite, allow),
		acl(tp, "payments-secret", lit, "User:*", "*", metadata.OpAll, deny),
		acl(tp, "*", lit, bob, "*", metadata.OpDescribe, allow),
		acl(tp, "cfg", lit, alice, "*", metadata.OpAlterConfigs, allow),
		acl(tp, "noread", lit, alice, "*", metadata.OpRead, deny),
		acl(tp, "noread", lit, alice, "*", metadata.OpAll, allow),
		acl(grp, "g", lit, alice, "*", metadata.OpRead, allow),
	}
	az := New(Settings{SuperUsers: ParseSuperUsers("User:admin; User:ops")}, acls)
	open := New(Settings{AllowIfNoACL: true}, acls)
	for _, c := range []struct {
		name      string
		az        *Authorizer
		principal string
		host      string
		act       Action
		want      bool
	}{
		{"an ALLOW", az, alice, here, topic(metadata.OpRead, "orders"), true},
		{"no ACL for the operation", az, alice, here, topic(metadata.OpDelete, "orders"), false},
		{"READ implies DESCRIBE", az, alice, here, topic(metadata.OpDescribe, "orders"), true},
		{"a DENY on this host", az, alice, here, topic(metadata.OpWrite, "orders"), false},
		{"a prefixed ALLOW in the CIDR block", az, alice, "192.0.2.200", topic(metadata.OpWrite, "payments"), true},
		{"a prefixed ALLOW outside the block", az, alice, "198.51.100.1", topic(metadata.OpWrite, "payments"), false},
		{"a prefix longer than the name", az, alice, here, topic(metadata.OpWrite, "pa"), false},
		{"DENY ALL for every user beats the prefix", az, alice, here, topic(metadata.OpWrite, "payments-secret"), false},
		{"the wildcard resource", az, bob, here, topic(metadata.OpDescribe, "anything"), true},
		{"DESCRIBE does not imply READ", az, bob, here, topic(metadata.OpRead, "anything"), false},
		{"ALTER_CONFIGS implies DESCRIBE_CONFIGS", az, alice, here, topic(metadata.OpDescribeConfigs, "cfg"), true},
		{"ALTER_CONFIGS does not imply DESCRIBE", az, alice, here, topic(metadata.OpDescribe, "cfg"), false},
		{"DENY READ beats ALLOW ALL", az, alice, here, topic(metadata.OpRead, "noread"), false},
		{"a DENY READ denies no DESCRIBE", az, alice, here, topic(metadata.OpDescribe, "noread"), true},
		{"another principal", az, "User:carol", here, topic(metadata.OpRead, "orders"), false},
		{"a super user", az, "User:ops", here, topic(metadata.OpDelete, "payments-secret"), true},
		// bob's wildcard ACL gives every topic ACLs, so none is ACL-less.
		{"no ACL on the resource, denied by default", az, alice, here, Action{metadata.OpRead, metadata.ResourceCluster, metadata.ClusterResourceName}, false},
		{"no ACL on the resource, allowed by the setting", open, alice, here, Action{metadata.OpRead, metadata.ResourceCluster, metadata.ClusterResourceName}, true},
		{"a resource with ACLs is not open", open, "User:carol", here, topic(metadata.OpRead, "orders"), false},
		{"a group", az, alice, here, Action{metadata.OpDescribe, grp, "g"}, true},
		{"a group without ACLs under allow.everyone", open, alice, here, Action{metadata.OpRead, grp, "other"}, true},
	} {
		if got := c.az.Authorize(c.principal, c.host, c.act); got != c.want {
			t.Errorf("%s: %s from %s %+v: %v, want %v", c.name, c.principal, c.host, c.act, got, c.want)
		}
	}
}

// BenchmarkAuthorize measures one check against n ACLs on distinct
// topics, the checked topic's ACL literal or prefixed.
func BenchmarkAuthorize(b *testing.B) {
	for _, pattern := range []int8{metadata.PatternLiteral, metadata.PatternPrefixed} {
		for _, n := range []int{10, 1_000, 100_000} {
			acls := make([]metadata.ACL, n)
			for i := range acls {
				acls[i] = acl(metadata.ResourceTopic, fmt.Sprintf("topic-%06d", i), pattern, fmt.Sprintf("User:u%d", i%100), "*", metadata.OpRead, metadata.PermissionAllow)
			}
			az := New(Settings{}, acls)
			name := fmt.Sprintf("topic-%06d", n/2)
			if pattern == metadata.PatternPrefixed {
				name += "-events"
			}
			principal := fmt.Sprintf("User:u%d", (n/2)%100)
			label := map[int8]string{metadata.PatternLiteral: "literal", metadata.PatternPrefixed: "prefixed"}[pattern]
			b.Run(fmt.Sprintf("%s/acls=%d", label, n), func(b *testing.B) {
				act := topic(metadata.OpRead, name)
				for b.Loop() {
					if !az.Authorize(principal, "192.0.2.1", act) {
						b.Fatal("denied")
					}
				}
			})
		}
	}
}

// TestAuthorizeByResourceType follows Kafka's Authorizer.authorizeByResourceType
// (AuthorizerTest's testAuthorizeByResourceType* cases): an ALLOW on some
// pattern that no DENY covers is enough; a DENY on the literal wildcard,
// or a DENY prefix covering every ALLOW, refuses.
func TestAuthorizeByResourceType(t *testing.T) {
	const (
		lit, pre    = metadata.PatternLiteral, metadata.PatternPrefixed
		allow, deny = metadata.PermissionAllow, metadata.PermissionDeny
		tp          = metadata.ResourceTopic
		w           = metadata.OpWrite
		alice, host = "User:alice", "192.0.2.1"
	)
	for _, c := range []struct {
		name     string
		settings Settings
		acls     []metadata.ACL
		want     bool
	}{
		{"no ACL", Settings{}, nil, false},
		{"no ACL, allow.everyone.if.no.acl.found", Settings{AllowIfNoACL: true}, nil, true},
		{"a super user", Settings{SuperUsers: []string{alice}}, []metadata.ACL{acl(tp, "*", lit, alice, "*", w, deny)}, true},
		{"a literal ALLOW", Settings{}, []metadata.ACL{acl(tp, "orders", lit, alice, "*", w, allow)}, true},
		{"an ALLOW ALL", Settings{}, []metadata.ACL{acl(tp, "orders", lit, "User:*", host, metadata.OpAll, allow)}, true},
		{"READ is not WRITE", Settings{}, []metadata.ACL{acl(tp, "orders", lit, alice, "*", metadata.OpRead, allow)}, false},
		{"another host", Settings{}, []metadata.ACL{acl(tp, "orders", lit, alice, "198.51.100.1", w, allow)}, false},
		{"the literal DENY of the same name", Settings{}, []metadata.ACL{
			acl(tp, "orders", lit, alice, "*", w, allow), acl(tp, "orders", lit, alice, "*", w, deny)}, false},
		{"a DENY prefix covering the ALLOW", Settings{}, []metadata.ACL{
			acl(tp, "orders", lit, alice, "*", w, allow), acl(tp, "ord", pre, alice, "*", w, deny)}, false},
		{"a DENY prefix covering one of two ALLOWs", Settings{}, []metadata.ACL{
			acl(tp, "orders", lit, alice, "*", w, allow), acl(tp, "pay", pre, alice, "*", w, allow),
			acl(tp, "ord", pre, alice, "*", w, deny)}, true},
		{"a longer DENY prefix leaves the ALLOW prefix", Settings{}, []metadata.ACL{
			acl(tp, "pay", pre, alice, "*", w, allow), acl(tp, "payroll", pre, alice, "*", w, deny)}, true},
		{"a DENY on the wildcard", Settings{}, []metadata.ACL{
			acl(tp, "*", lit, alice, "*", w, allow), acl(tp, "*", lit, alice, "*", w, deny)}, false},
		{"an ALLOW on the wildcard beats a DENY prefix", Settings{}, []metadata.ACL{
			acl(tp, "*", lit, alice, "*", w, allow), acl(tp, "a", pre, alice, "*", w, deny)}, true},
	} {
		if got := New(c.settings, c.acls).AuthorizeByResourceType(alice, host, w, tp); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDecisionRules: the rule each decision names is the one Kafka 4.4.0's
// StandardAuthorizer wrote after "based on rule" for the same ACLs in the
// ACL differential's run (its kafka.authorizer.logger lines).
func TestDecisionRules(t *testing.T) {
	const alice = "User:alice"
	acls := []metadata.ACL{
		acl(metadata.ResourceTopic, "diff", metadata.PatternLiteral, alice, "*", metadata.OpDescribe, metadata.PermissionAllow),
		acl(metadata.ResourceTopic, "diff", metadata.PatternLiteral, alice, "*", metadata.OpDescribe, metadata.PermissionDeny),
		acl(metadata.ResourceGroup, "g-join-", metadata.PatternPrefixed, alice, "*", metadata.OpRead, metadata.PermissionAllow),
	}
	az := New(Settings{SuperUsers: []string{"User:ANONYMOUS"}}, acls)
	open := New(Settings{AllowIfNoACL: true}, acls)
	group := Action{Operation: metadata.OpRead, ResourceType: metadata.ResourceGroup, ResourceName: "g-join-none-v3"}
	for _, c := range []struct {
		name    string
		d       Decision
		allowed bool
		rule    string
	}{
		{"deny beats allow", az.Decide(alice, "127.0.0.1", topic(metadata.OpDescribe, "diff")), false,
			"MatchingAcl(acl=StandardAcl[resourceType=TOPIC, resourceName=diff, patternType=LITERAL, principal=User:alice, host=*, operation=DESCRIBE, permissionType=DENY])"},
		{"prefixed allow", az.Decide(alice, "127.0.0.1", group), true,
			"MatchingAcl(acl=StandardAcl[resourceType=GROUP, resourceName=g-join-, patternType=PREFIXED, principal=User:alice, host=*, operation=READ, permissionType=ALLOW])"},
		{"no acl applies", az.Decide("User:bob", "127.0.0.1", group), false, "DefaultDeny"},
		{"no acl on the resource type", az.Decide(alice, "127.0.0.1", Action{Operation: metadata.OpAlter, ResourceType: metadata.ResourceCluster, ResourceName: "kafka-cluster"}), false, "DefaultDeny"},
		{"allow.everyone.if.no.acl.found", open.Decide(alice, "127.0.0.1", topic(metadata.OpRead, "other")), true, "DefaultAllow"},
		{"super user", az.Decide("User:ANONYMOUS", "127.0.0.1", topic(metadata.OpDescribe, "diff")), true, "SuperUser"},
	} {
		if c.d.Allowed != c.allowed || c.d.Rule() != c.rule {
			t.Errorf("%s: allowed %v by %q, want %v by %q", c.name, c.d.Allowed, c.d.Rule(), c.allowed, c.rule)
		}
	}
}
