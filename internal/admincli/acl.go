package admincli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const aclSummary = `List, create and delete ACLs, as kafka-acls --list, --add and --remove do
(DescribeAcls, CreateAcls, DeleteAcls), with kafka-acls' flags: --allow-principal,
--deny-principal, --allow-host, --deny-host, --operation, --topic, --group, --cluster,
--transactional-id, --delegation-token, --user-principal, --resource-pattern-type,
--producer and --consumer.`

func runACL(ctx context.Context, args []string, s Streams) error {
	return dispatch(ctx, "acl", aclSummary, []subcommand{
		{"list", "list ACLs, of the resources and principals named (all without)", aclList},
		{"create", "add ACLs: principals x hosts x operations on each resource", aclCreate},
		{"delete", "remove the ACLs the flags match (all of a resource without principals)", aclDelete},
	}, args, s)
}

// clusterResourceName is the name of the one CLUSTER resource.
const clusterResourceName = "kafka-cluster"

// aclFlags are kafka-acls' flags, each verb registering the ones it takes.
type aclFlags struct {
	conn                                  connection
	topics, groups, txnIDs, tokens, users repeated
	cluster                               bool
	patternType                           string
	allowPrincipals, denyPrincipals       repeated
	allowHosts, denyHosts, operations     repeated
	principals                            repeated // list's filter
	producer, consumer, idempotent, force bool
}

func (a *aclFlags) registerResources(f *flags, patternDefault, patternHelp string) {
	a.conn.register(f)
	f.Var(&a.topics, "topic", "a topic `NAME` (repeatable; * is every topic)")
	f.Var(&a.groups, "group", "a consumer group `ID` (repeatable; * is every group)")
	f.BoolVar(&a.cluster, "cluster", false, "the cluster resource")
	f.Var(&a.txnIDs, "transactional-id", "a transactional `ID` (repeatable)")
	f.Var(&a.tokens, "delegation-token", "a delegation token `ID` (repeatable)")
	f.Var(&a.users, "user-principal", "a user `PRINCIPAL` as a resource, for CreateTokens and DescribeTokens (repeatable)")
	f.StringVar(&a.patternType, "resource-pattern-type", patternDefault, patternHelp)
}

func (a *aclFlags) registerEntries(f *flags) {
	f.Var(&a.allowPrincipals, "allow-principal", "a `PRINCIPAL` the ACLs allow, as User:alice (repeatable)")
	f.Var(&a.denyPrincipals, "deny-principal", "a `PRINCIPAL` the ACLs deny (repeatable)")
	f.Var(&a.allowHosts, "allow-host", "a `HOST` the allowing ACLs apply from (repeatable; default * when there are --allow-principal)")
	f.Var(&a.denyHosts, "deny-host", "a `HOST` the denying ACLs apply from (repeatable; default * when there are --deny-principal)")
	f.Var(&a.operations, "operation", "an `OPERATION`: Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, CreateTokens, DescribeTokens, All (repeatable; default All)")
	f.BoolVar(&a.producer, "producer", false, "the producer's ACLs: Write, Describe, Create on --topic; Write, Describe on --transactional-id")
	f.BoolVar(&a.consumer, "consumer", false, "the consumer's ACLs: Read, Describe on --topic; Read on --group")
	f.BoolVar(&a.idempotent, "idempotent", false, "with --producer, IdempotentWrite on the cluster")
}

// resourceFilter is a resource pattern, or a filter of them.
type resourceFilter struct {
	kind    kmsg.ACLResourceType
	name    *string // nil: any name
	pattern kmsg.ACLResourcePatternType
}

func (r resourceFilter) String() string {
	name := "(any)"
	if r.name != nil {
		name = *r.name
	}
	return fmt.Sprintf("%s %q (%s)", r.kind, name, r.pattern)
}

// resources are the resources the flags name, with the pattern type.
func (a *aclFlags) resources(f *flags, allowed ...kmsg.ACLResourcePatternType) ([]resourceFilter, error) {
	pattern, err := kmsg.ParseACLResourcePatternType(a.patternType)
	if err != nil || !containsPattern(allowed, pattern) {
		names := make([]string, len(allowed))
		for i, p := range allowed {
			names[i] = strings.ToLower(p.String())
		}
		return nil, usagef(f.help(), "--resource-pattern-type %q: want %s", a.patternType, strings.Join(names, ", "))
	}
	var out []resourceFilter
	add := func(kind kmsg.ACLResourceType, names []string) {
		for _, n := range names {
			out = append(out, resourceFilter{kind: kind, name: &n, pattern: pattern})
		}
	}
	add(kmsg.ACLResourceTypeTopic, a.topics)
	add(kmsg.ACLResourceTypeGroup, a.groups)
	if a.cluster {
		add(kmsg.ACLResourceTypeCluster, []string{clusterResourceName})
	}
	add(kmsg.ACLResourceTypeTransactionalId, a.txnIDs)
	add(kmsg.ACLResourceTypeDelegationToken, a.tokens)
	add(kmsg.ACLResourceTypeUser, a.users)
	return out, nil
}

// parseChange registers and parses the flags of a verb that changes ACLs
// (create, delete) and returns the resources, of which there must be one.
func (a *aclFlags) parseChange(f *flags, args []string, allowed ...kmsg.ACLResourcePatternType) ([]resourceFilter, error) {
	names := make([]string, len(allowed))
	for i, p := range allowed {
		names[i] = strings.ToLower(p.String())
	}
	a.registerResources(f, "literal", "the pattern `TYPE` of the resources named: "+strings.Join(names, ", "))
	a.registerEntries(f)
	if _, err := f.parse(args); err != nil {
		return nil, err
	}
	resources, err := a.resources(f, allowed...)
	if err == nil && len(resources) == 0 {
		err = usagef(f.help(), "no resource: give --topic, --group, --cluster, --transactional-id, --delegation-token or --user-principal")
	}
	return resources, err
}

func containsPattern(ps []kmsg.ACLResourcePatternType, p kmsg.ACLResourcePatternType) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// aclEntry is one access control entry, an ACL without its resource.
type aclEntry struct {
	principal, host string
	operation       kmsg.ACLOperation
	permission      kmsg.ACLPermissionType
}

// binding is an ACL: a resource pattern and an entry.
type binding struct {
	resource resourceFilter
	entry    aclEntry
}

func (b binding) cells() []any {
	return []any{b.resource.kind, *b.resource.name, b.resource.pattern, b.entry.principal, b.entry.host, b.entry.operation, b.entry.permission}
}

func (b binding) key() string { return fmt.Sprint(b.cells()...) }

var aclHeader = []string{"TYPE", "NAME", "PATTERN", "PRINCIPAL", "HOST", "OPERATION", "PERMISSION"}

// printBindings prints ACLs sorted by resource, then entry.
func printBindings(s Streams, bs []binding) {
	sort.Slice(bs, func(i, j int) bool {
		x, y := bs[i], bs[j]
		switch {
		case x.resource.kind != y.resource.kind:
			return x.resource.kind < y.resource.kind
		case *x.resource.name != *y.resource.name:
			return *x.resource.name < *y.resource.name
		case x.resource.pattern != y.resource.pattern:
			return x.resource.pattern < y.resource.pattern
		case x.entry.principal != y.entry.principal:
			return x.entry.principal < y.entry.principal
		case x.entry.host != y.entry.host:
			return x.entry.host < y.entry.host
		case x.entry.operation != y.entry.operation:
			return x.entry.operation < y.entry.operation
		}
		return x.entry.permission < y.entry.permission
	})
	t := newTable(s.Out, aclHeader...)
	for _, b := range bs {
		t.row(b.cells()...)
	}
	t.flush()
}

// hostsFor is the hosts of one permission: the flag's, else * when the
// permission has principals, as kafka-acls defaults them.
func hostsFor(hosts, principals []string) []string {
	if len(hosts) == 0 && len(principals) > 0 {
		return []string{"*"}
	}
	return hosts
}

// entries are the entries the principal, host and operation flags make
// (kafka-acls' cross product), ops the operations (All when none given).
func (a *aclFlags) entries(ops []kmsg.ACLOperation) []aclEntry {
	var out []aclEntry
	for _, side := range []struct {
		perm              kmsg.ACLPermissionType
		principals, hosts []string
	}{
		{kmsg.ACLPermissionTypeAllow, a.allowPrincipals, hostsFor(a.allowHosts, a.allowPrincipals)},
		{kmsg.ACLPermissionTypeDeny, a.denyPrincipals, hostsFor(a.denyHosts, a.denyPrincipals)},
	} {
		for _, p := range side.principals {
			for _, h := range side.hosts {
				for _, op := range ops {
					out = append(out, aclEntry{principal: p, host: h, operation: op, permission: side.perm})
				}
			}
		}
	}
	return out
}

// operationsFlag parses --operation, All when it is not given.
func (a *aclFlags) operationsFlag(f *flags) ([]kmsg.ACLOperation, error) {
	if len(a.operations) == 0 {
		return []kmsg.ACLOperation{kmsg.ACLOperationAll}, nil
	}
	var ops []kmsg.ACLOperation
	for _, name := range a.operations {
		op, err := kmsg.ParseACLOperation(name)
		if err != nil || op == kmsg.ACLOperationAny {
			return nil, usagef(f.help(), "unknown --operation %q", name)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// bindings are the ACLs of the flags: each resource with each entry, or,
// with --producer or --consumer, the operations those clients need.
func (a *aclFlags) bindings(f *flags, resources []resourceFilter) ([]binding, error) {
	if len(a.allowPrincipals)+len(a.denyPrincipals) == 0 {
		return nil, nil
	}
	if !a.producer && !a.consumer {
		ops, err := a.operationsFlag(f)
		if err != nil {
			return nil, err
		}
		var out []binding
		for _, r := range resources {
			for _, e := range a.entries(ops) {
				out = append(out, binding{r, e})
			}
		}
		return out, nil
	}
	if len(a.operations) > 0 {
		return nil, usagef(f.help(), "--operation goes with neither --producer nor --consumer, which choose the operations")
	}
	perKind := map[kmsg.ACLResourceType][]kmsg.ACLOperation{}
	if a.producer {
		perKind[kmsg.ACLResourceTypeTopic] = []kmsg.ACLOperation{kmsg.ACLOperationWrite, kmsg.ACLOperationDescribe, kmsg.ACLOperationCreate}
		perKind[kmsg.ACLResourceTypeTransactionalId] = []kmsg.ACLOperation{kmsg.ACLOperationWrite, kmsg.ACLOperationDescribe}
		if a.idempotent {
			perKind[kmsg.ACLResourceTypeCluster] = []kmsg.ACLOperation{kmsg.ACLOperationIdempotentWrite}
			resources = append(resources, resourceFilter{kind: kmsg.ACLResourceTypeCluster, name: ptr(clusterResourceName), pattern: kmsg.ACLResourcePatternTypeLiteral})
		}
	}
	if a.consumer {
		if len(a.groups) == 0 {
			return nil, usagef(f.help(), "--consumer needs --group")
		}
		perKind[kmsg.ACLResourceTypeTopic] = append(perKind[kmsg.ACLResourceTypeTopic], kmsg.ACLOperationRead, kmsg.ACLOperationDescribe)
		perKind[kmsg.ACLResourceTypeGroup] = []kmsg.ACLOperation{kmsg.ACLOperationRead}
	}
	if len(a.topics) == 0 {
		return nil, usagef(f.help(), "--producer and --consumer need --topic")
	}
	seen := map[string]bool{}
	var out []binding
	for _, r := range resources {
		for _, e := range a.entries(perKind[r.kind]) {
			if b := (binding{r, e}); !seen[b.key()] {
				seen[b.key()] = true
				out = append(out, b)
			}
		}
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

func aclList(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "acl list", "[RESOURCE FLAGS] [--principal P]...",
		"List the ACLs of the resources named (every ACL when none is), of the principals\nnamed (any principal when none is). With a resource, --resource-pattern-type\nliteral (the default) or prefixed lists the ACLs of exactly that pattern, any\nthose of either, match every ACL that applies to the resource (wildcards and\nprefixes included), as kafka-acls --list does.")
	var a aclFlags
	a.registerResources(f, "literal", "the pattern `TYPE` of the resources named: literal, prefixed, any or match")
	f.Var(&a.principals, "principal", "only the ACLs of `PRINCIPAL` (repeatable)")
	_, adm, done, err := a.conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.exactly(operands, 0, "no arguments") })
	if err != nil {
		return err
	}
	defer done()
	resources, err := a.resources(f, kmsg.ACLResourcePatternTypeLiteral, kmsg.ACLResourcePatternTypePrefixed, kmsg.ACLResourcePatternTypeAny, kmsg.ACLResourcePatternTypeMatch)
	if err != nil {
		return err
	}
	if len(resources) == 0 {
		resources = []resourceFilter{{kind: kmsg.ACLResourceTypeAny, pattern: kmsg.ACLResourcePatternTypeAny}}
	}
	principals := []*string{nil}
	if len(a.principals) > 0 {
		principals = principals[:0]
		for _, p := range a.principals {
			principals = append(principals, ptr(p))
		}
	}
	seen := map[string]bool{}
	var found []binding
	for _, r := range resources {
		for _, p := range principals {
			req := kmsg.NewPtrDescribeACLsRequest()
			req.ResourceType, req.ResourceName, req.ResourcePatternType = r.kind, r.name, r.pattern
			req.Principal, req.Operation, req.PermissionType = p, kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
			resp, err := req.RequestWith(adm.ctx, adm.raw)
			if err != nil {
				return err
			}
			if err := resultErr("describing ACLs of "+r.String(), kerr.ErrorForCode(resp.ErrorCode), deref(resp.ErrorMessage)); err != nil {
				return err
			}
			for _, res := range resp.Resources {
				for _, acl := range res.ACLs {
					b := binding{resourceFilter{res.ResourceType, ptr(res.ResourceName), res.ResourcePatternType},
						aclEntry{acl.Principal, acl.Host, acl.Operation, acl.PermissionType}}
					if !seen[b.key()] {
						seen[b.key()] = true
						found = append(found, b)
					}
				}
			}
		}
	}
	printBindings(s, found)
	return nil
}

func aclCreate(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "acl create", "--allow-principal P|--deny-principal P [--operation OP]... RESOURCE FLAGS",
		"Add an ACL for each resource, principal, host and operation given, as\nkafka-acls --add does, and print the ACLs added. The ACLs are LITERAL unless\n--resource-pattern-type prefixed makes each name a prefix.")
	var a aclFlags
	resources, err := a.parseChange(f, args, kmsg.ACLResourcePatternTypeLiteral, kmsg.ACLResourcePatternTypePrefixed)
	if err != nil {
		return err
	}
	bindings, err := a.bindings(f, resources)
	if err != nil {
		return err
	}
	if len(bindings) == 0 {
		return usagef(f.help(), "no principal: give --allow-principal or --deny-principal")
	}
	adm, done, err := a.conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	req := kmsg.NewPtrCreateACLsRequest()
	for _, b := range bindings {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType, c.ResourceName, c.ResourcePatternType = b.resource.kind, *b.resource.name, b.resource.pattern
		c.Principal, c.Host, c.Operation, c.PermissionType = b.entry.principal, b.entry.host, b.entry.operation, b.entry.permission
		req.Creations = append(req.Creations, c)
	}
	resp, err := req.RequestWith(adm.ctx, adm.raw)
	if err != nil {
		return err
	}
	if len(resp.Results) != len(bindings) {
		return fmt.Errorf("the broker answered %d results for %d ACLs", len(resp.Results), len(bindings))
	}
	fails := failures{err: s.Err}
	var created []binding
	for i, r := range resp.Results {
		b := bindings[i]
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			fails.add(resultErr(fmt.Sprintf("creating %s ACL of %s for %s on %s", b.entry.permission, b.entry.principal, b.entry.operation, b.resource), err, deref(r.ErrorMessage)))
			continue
		}
		created = append(created, b)
	}
	if len(created) > 0 {
		printBindings(s, created)
	}
	return fails.result()
}

func aclDelete(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "acl delete", "RESOURCE FLAGS [--allow-principal P|--deny-principal P [--operation OP]...] [--force]",
		"Remove ACLs, as kafka-acls --remove does, and print those removed. With\nprincipals, the ACLs removed are exactly those acl create would add with the\nsame flags (host * and operation All unless given); without, every ACL of each\nresource. --resource-pattern-type any or match widens each resource as in\nacl list. Unless --force, asks for a y on stdin first.")
	var a aclFlags
	f.BoolVar(&a.force, "force", false, "do not ask for confirmation")
	resources, err := a.parseChange(f, args, kmsg.ACLResourcePatternTypeLiteral, kmsg.ACLResourcePatternTypePrefixed, kmsg.ACLResourcePatternTypeAny, kmsg.ACLResourcePatternTypeMatch)
	if err != nil {
		return err
	}
	var filters []kmsg.DeleteACLsRequestFilter
	var what []string
	bindings, err := a.bindings(f, resources)
	if err != nil {
		return err
	}
	for _, b := range bindings {
		flt := kmsg.NewDeleteACLsRequestFilter()
		flt.ResourceType, flt.ResourceName, flt.ResourcePatternType = b.resource.kind, b.resource.name, b.resource.pattern
		flt.Principal, flt.Host, flt.Operation, flt.PermissionType = ptr(b.entry.principal), ptr(b.entry.host), b.entry.operation, b.entry.permission
		filters = append(filters, flt)
		what = append(what, fmt.Sprintf("%s %s from %s %s on %s", b.entry.permission, b.entry.principal, b.entry.host, b.entry.operation, b.resource))
	}
	if len(bindings) == 0 {
		for _, r := range resources {
			flt := kmsg.NewDeleteACLsRequestFilter()
			flt.ResourceType, flt.ResourceName, flt.ResourcePatternType = r.kind, r.name, r.pattern
			flt.Operation, flt.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
			filters = append(filters, flt)
			what = append(what, "every ACL of "+r.String())
		}
	}
	if !a.force {
		fmt.Fprintf(s.Err, "Remove these ACLs?\n  %s\n(y/n) ", strings.Join(what, "\n  "))
		line, _ := bufio.NewReader(s.In).ReadString('\n')
		if !strings.EqualFold(strings.TrimSpace(line), "y") {
			return errors.New("not confirmed: nothing removed (--force skips the question)")
		}
	}
	adm, done, err := a.conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	req := kmsg.NewPtrDeleteACLsRequest()
	req.Filters = filters
	resp, err := req.RequestWith(adm.ctx, adm.raw)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	var removed []binding
	for i, r := range resp.Results {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			label := "an ACL filter"
			if i < len(what) {
				label = what[i]
			}
			fails.add(resultErr("removing "+label, err, deref(r.ErrorMessage)))
			continue
		}
		for _, m := range r.MatchingACLs {
			if err := kerr.ErrorForCode(m.ErrorCode); err != nil {
				fails.add(resultErr(fmt.Sprintf("removing %s ACL of %s on %s %q", m.PermissionType, m.Principal, m.ResourceType, m.ResourceName), err, deref(m.ErrorMessage)))
				continue
			}
			removed = append(removed, binding{resourceFilter{m.ResourceType, ptr(m.ResourceName), m.ResourcePatternType},
				aclEntry{m.Principal, m.Host, m.Operation, m.PermissionType}})
		}
	}
	printBindings(s, removed)
	return fails.result()
}
