package integration

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/karsttest"
)

const standardAuthorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"

// startACLBroker starts a broker with the authorizer on, whose PLAINTEXT
// clients (User:ANONYMOUS) are super users.
func startACLBroker(t *testing.T) *karsttest.Broker {
	t.Helper()
	return karsttest.Start(t, karsttest.WithConfig("authorizer.class.name", standardAuthorizer),
		karsttest.WithConfig("super.users", "User:ANONYMOUS"))
}

func rawClient(t *testing.T, addr string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func aclAdmin(t *testing.T, addr string) *kadm.Client { return kadm.NewClient(rawClient(t, addr)) }

// TestACLsFranzGo creates, describes and deletes ACLs of every resource
// type with kadm, LITERAL and PREFIXED, and filters them by MATCH and ANY.
func TestACLsFranzGo(t *testing.T) {
	b := startACLBroker(t)
	adm := aclAdmin(t, b.Addr())
	ctx := testContext(t)

	created, err := adm.CreateACLs(ctx, kadm.NewACLs().Allow("User:alice").AllowHosts("10.0.0.0/8").
		Topics("orders").Groups("g").TransactionalIDs("tx").DelegationTokens("tok").Clusters().
		Operations(kadm.OpRead, kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternLiteral))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range created {
		if c.Err != nil {
			t.Fatalf("create %s %s: %v", c.Type, c.Name, c.Err)
		}
	}
	prefixed, err := adm.CreateACLs(ctx, kadm.NewACLs().Deny("User:mallory").Topics("ord").Operations(kadm.OpWrite).
		ResourcePatternType(kadm.ACLPatternPrefixed))
	if err != nil || prefixed[0].Err != nil {
		t.Fatalf("create prefixed: %v %v", err, prefixed)
	}
	// kadm's builder has no USER resources; the request carries one.
	user := kmsg.NewPtrCreateACLsRequest()
	creation := kmsg.NewCreateACLsRequestCreation()
	creation.ResourceType, creation.ResourceName, creation.ResourcePatternType = kmsg.ACLResourceTypeUser, "User:bob", kmsg.ACLResourcePatternTypeLiteral
	creation.Principal, creation.Host = "User:alice", "*"
	creation.Operation, creation.PermissionType = kmsg.ACLOperationCreateTokens, kmsg.ACLPermissionTypeAllow
	user.Creations = append(user.Creations, creation)
	if resp, err := user.RequestWith(ctx, rawClient(t, b.Addr())); err != nil || resp.Results[0].ErrorCode != 0 {
		t.Fatalf("create a USER ACL: %v %+v", err, resp)
	}

	all, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Allow().Deny().AllowHosts().DenyHosts().
		Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny))
	if err != nil {
		t.Fatal(err)
	}
	if n := countDescribed(t, all); n != 12 {
		t.Fatalf("%d ACLs described, want 5 resources x 2 operations, the prefixed and the USER", n)
	}

	match, err := adm.DescribeACLs(ctx, kadm.NewACLs().Topics("orders").Allow().Deny().AllowHosts().DenyHosts().
		Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternMatch))
	if err != nil {
		t.Fatal(err)
	}
	if n := countDescribed(t, match); n != 3 {
		t.Fatalf("MATCH orders: %d ACLs, want the two literal and the prefixed", n)
	}

	deleted, err := adm.DeleteACLs(ctx, kadm.NewACLs().Topics("orders").Allow().Deny().AllowHosts().DenyHosts().
		Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternMatch))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range deleted {
		if d.Err != nil {
			t.Fatalf("delete: %+v", d)
		}
		n += len(d.Deleted)
	}
	if n != 3 {
		t.Fatalf("deleted %d ACLs: %+v", n, deleted)
	}
	left, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Allow().Deny().AllowHosts().DenyHosts().
		Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny))
	if err != nil {
		t.Fatal(err)
	}
	if n := countDescribed(t, left); n != 9 {
		t.Fatalf("%d ACLs left, want 9", n)
	}
}

func countDescribed(t *testing.T, results kadm.DescribeACLsResults) int {
	t.Helper()
	n := 0
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("describe: %v", r.Err)
		}
		n += len(r.Described)
	}
	return n
}

// TestACLsRefused checks Kafka's refusals: SECURITY_DISABLED without an
// authorizer, INVALID_REQUEST with Kafka's message per bad creation, and a
// closed connection for an UNKNOWN code Kafka's parser rejects.
func TestACLsRefused(t *testing.T) {
	ctx := testContext(t)
	plain := aclAdmin(t, karsttest.Start(t).Addr())
	described, err := plain.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Allow().AllowHosts().Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny))
	if err != nil || len(described) != 1 || !errors.Is(described[0].Err, kerr.SecurityDisabled) {
		t.Fatalf("describe without an authorizer: %v %+v", err, described)
	}

	cl := rawClient(t, startACLBroker(t).Addr())
	req := kmsg.NewPtrCreateACLsRequest()
	for _, c := range []struct {
		resourceType kmsg.ACLResourceType
		name, host   string
	}{
		{kmsg.ACLResourceTypeCluster, "other", "*"},
		{kmsg.ACLResourceTypeTopic, "", "*"},
		{kmsg.ACLResourceTypeTopic, "t", "10.0.0.0/40"},
	} {
		creation := kmsg.NewCreateACLsRequestCreation()
		creation.ResourceType, creation.ResourceName, creation.ResourcePatternType = c.resourceType, c.name, kmsg.ACLResourcePatternTypeLiteral
		creation.Principal, creation.Host = "User:alice", c.host
		creation.Operation, creation.PermissionType = kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
		req.Creations = append(req.Creations, creation)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"The only valid name for the CLUSTER resource is kafka-cluster", "Invalid empty resource name", ""}
	for i, r := range resp.Results {
		if r.ErrorCode != kerr.InvalidRequest.Code || (want[i] != "" && (r.ErrorMessage == nil || *r.ErrorMessage != want[i])) {
			t.Errorf("creation %d: code %d message %v, want INVALID_REQUEST %q", i, r.ErrorCode, r.ErrorMessage, want[i])
		}
	}

	unknown := kmsg.NewPtrDescribeACLsRequest()
	unknown.ResourceType, unknown.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
	unknown.Operation, unknown.PermissionType = kmsg.ACLOperationUnknown, kmsg.ACLPermissionTypeAny
	if _, err := unknown.RequestWith(ctx, cl); err == nil {
		t.Fatal("an UNKNOWN operation filter was answered")
	}
}

// TestACLAPIsNeedClusterAccess checks the ACL APIs' own authorization
// over SASL/PLAIN: alice is refused CLUSTER_AUTHORIZATION_FAILED until the
// super user grants her ALTER on the cluster (which implies the DESCRIBE
// that DescribeAcls needs), and refused again under a DENY.
func TestACLAPIsNeedClusterAccess(t *testing.T) {
	b := startSASLBroker(t, karsttest.WithConfig("authorizer.class.name", standardAuthorizer),
		karsttest.WithConfig("super.users", "User:admin"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	admin := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	alice := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()))
	ctx := testContext(t)
	topicACL := kadm.NewACLs().Allow("User:alice").AllowHosts().Topics("t").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral)
	describeAll := kadm.NewACLs().AnyResource().Allow().Deny().AllowHosts().DenyHosts().Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny)

	created, err := alice.CreateACLs(ctx, topicACL)
	if err != nil || len(created) != 1 || !errors.Is(created[0].Err, kerr.ClusterAuthorizationFailed) {
		t.Fatalf("alice creating without ALTER: %v %+v", err, created)
	}
	described, err := alice.DescribeACLs(ctx, describeAll)
	if err != nil || !errors.Is(described[0].Err, kerr.ClusterAuthorizationFailed) {
		t.Fatalf("alice describing without DESCRIBE: %v %+v", err, described)
	}

	grant := kadm.NewACLs().Allow("User:alice").AllowHosts("127.0.0.0/8").Clusters().Operations(kadm.OpAlter).ResourcePatternType(kadm.ACLPatternLiteral)
	if created, err := admin.CreateACLs(ctx, grant); err != nil || created[0].Err != nil {
		t.Fatalf("admin granting ALTER: %v %+v", err, created)
	}
	if created, err := alice.CreateACLs(ctx, topicACL); err != nil || created[0].Err != nil {
		t.Fatalf("alice creating with ALTER: %v %+v", err, created)
	}
	described, err = alice.DescribeACLs(ctx, describeAll)
	if err != nil || countDescribed(t, described) != 2 {
		t.Fatalf("alice describing with ALTER (implying DESCRIBE): %v %+v", err, described)
	}

	deny := kadm.NewACLs().Deny("User:alice").DenyHosts().Clusters().Operations(kadm.OpAlter).ResourcePatternType(kadm.ACLPatternLiteral)
	if created, err := admin.CreateACLs(ctx, deny); err != nil || created[0].Err != nil {
		t.Fatalf("admin denying ALTER: %v %+v", err, created)
	}
	deleted, err := alice.DeleteACLs(ctx, topicACL)
	if err != nil || len(deleted) != 1 || !errors.Is(deleted[0].Err, kerr.ClusterAuthorizationFailed) {
		t.Fatalf("alice deleting under a DENY: %v %+v", err, deleted)
	}
	// A DENY of ALTER leaves the DESCRIBE that the ALLOW implies: a DENY
	// implies nothing.
	if described, err = alice.DescribeACLs(ctx, describeAll); err != nil || countDescribed(t, described) != 3 {
		t.Fatalf("alice describing under a DENY of ALTER: %v %+v", err, described)
	}
}

// TestACLAPIsAtVersion0: a client that speaks CreateAcls, DescribeAcls and
// DeleteAcls v0 (before KIP-290 added pattern types) works with LITERAL
// ACLs only; a PREFIXED ACL made at v3 is neither listed nor deleted at v0.
func TestACLAPIsAtVersion0(t *testing.T) {
	b := startACLBroker(t)
	ctx := testContext(t)
	adm := aclAdmin(t, b.Addr())
	if _, err := adm.CreateACLs(ctx, kadm.NewACLs().Allow("User:carol").Topics("pay").Operations(kadm.OpWrite).
		ResourcePatternType(kadm.ACLPatternPrefixed)); err != nil {
		t.Fatal(err)
	}
	v0 := kversion.Stable()
	for _, key := range []int16{29, 30, 31} {
		v0.SetMaxKeyVersion(key, 0)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.MaxVersions(v0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)

	create := kmsg.NewPtrCreateACLsRequest()
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName, c.Principal, c.Host = kmsg.ACLResourceTypeTopic, "pay", "User:carol", "*"
	c.Operation, c.PermissionType = kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
	create.Creations = append(create.Creations, c)
	if resp, err := create.RequestWith(ctx, cl); err != nil || resp.Version != 0 || resp.Results[0].ErrorCode != 0 {
		t.Fatalf("CreateAcls v0: %v %+v", err, resp)
	}

	describe := kmsg.NewPtrDescribeACLsRequest()
	describe.ResourceType, describe.Operation, describe.PermissionType = kmsg.ACLResourceTypeAny, kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	resp, err := describe.RequestWith(ctx, cl)
	if err != nil || resp.Version != 0 || resp.ErrorCode != 0 {
		t.Fatalf("DescribeAcls v0: %v %+v", err, resp)
	}
	if len(resp.Resources) != 1 || resp.Resources[0].ResourceName != "pay" || len(resp.Resources[0].ACLs) != 1 ||
		resp.Resources[0].ACLs[0].Operation != kmsg.ACLOperationRead {
		t.Fatalf("DescribeAcls v0 lists %+v, want the one LITERAL ACL", resp.Resources)
	}

	del := kmsg.NewPtrDeleteACLsRequest()
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourceName, f.Operation, f.PermissionType = kmsg.ACLResourceTypeTopic, kmsg.StringPtr("pay"), kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	del.Filters = append(del.Filters, f)
	if resp, err := del.RequestWith(ctx, cl); err != nil || resp.Version != 0 || len(resp.Results) != 1 || len(resp.Results[0].MatchingACLs) != 1 {
		t.Fatalf("DeleteAcls v0: %v %+v", err, resp)
	}

	left, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Allow().Deny().AllowHosts().DenyHosts().
		Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny))
	if err != nil {
		t.Fatal(err)
	}
	if n := countDescribed(t, left); n != 1 {
		t.Fatalf("%d ACLs left after the v0 delete, want the PREFIXED one", n)
	}
}
