package admincli

import (
	"strings"
	"testing"

	"github.com/karst-broker/karst/karsttest"
)

// startACLCLI starts a broker with the StandardAuthorizer whose PLAINTEXT
// clients (User:ANONYMOUS) are super users, so the CLI may manage ACLs.
func startACLCLI(t *testing.T) *cli {
	t.Helper()
	b := karsttest.Start(t, karsttest.WithAutoCreateTopics(false),
		karsttest.WithConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
		karsttest.WithConfig("super.users", "User:ANONYMOUS"))
	return &cli{t: t, bootstrap: b.Addr()}
}

// TestACLCreateListDelete: ACLs made with kafka-acls' flags are listed
// back as the broker stores them, filtered by resource, pattern type and
// principal, and deleted exactly (with a principal) or per resource.
func TestACLCreateListDelete(t *testing.T) {
	c := startACLCLI(t)
	header := "TYPE  NAME  PATTERN  PRINCIPAL  HOST  OPERATION  PERMISSION"
	if out := c.ok("acl", "list"); strings.Join(strings.Fields(out), " ") != strings.Join(strings.Fields(header), " ") {
		t.Fatalf("no ACLs yet:\n%s", out)
	}

	created := c.ok("acl", "create", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "describe",
		"--topic", "orders", "--group", "billing")
	wantRows(t, "create", created,
		"TOPIC orders LITERAL User:alice * READ ALLOW",
		"TOPIC orders LITERAL User:alice * DESCRIBE ALLOW",
		"GROUP billing LITERAL User:alice * READ ALLOW",
		"GROUP billing LITERAL User:alice * DESCRIBE ALLOW")
	c.ok("acl", "create", "--deny-principal", "User:mallory", "--deny-host", "10.0.0.9", "--operation", "Write",
		"--topic", "ord", "--resource-pattern-type", "prefixed")
	c.ok("acl", "create", "--allow-principal", "User:ops", "--cluster", "--transactional-id", "tx-1") // operation All
	c.ok("acl", "create", "--producer", "--idempotent", "--allow-principal", "User:app", "--topic", "orders")

	all := fields(c.ok("acl", "list"))[1:]
	want := []string{
		"TOPIC ord PREFIXED User:mallory 10.0.0.9 WRITE DENY",
		"TOPIC orders LITERAL User:alice * READ ALLOW",
		"TOPIC orders LITERAL User:alice * DESCRIBE ALLOW",
		"TOPIC orders LITERAL User:app * WRITE ALLOW",
		"TOPIC orders LITERAL User:app * CREATE ALLOW",
		"TOPIC orders LITERAL User:app * DESCRIBE ALLOW",
		"GROUP billing LITERAL User:alice * READ ALLOW",
		"GROUP billing LITERAL User:alice * DESCRIBE ALLOW",
		"CLUSTER kafka-cluster LITERAL User:app * IDEMPOTENT_WRITE ALLOW",
		"CLUSTER kafka-cluster LITERAL User:ops * ALL ALLOW",
		"TRANSACTIONAL_ID tx-1 LITERAL User:ops * ALL ALLOW",
	}
	if got := joinRows(all); got != strings.Join(want, "\n") {
		t.Fatalf("acl list:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	// A literal --topic lists that pattern only; match adds the prefixed
	// ACL that also applies to the topic; --principal narrows.
	if got := joinRows(fields(c.ok("acl", "list", "--topic", "orders"))[1:]); got != strings.Join(want[1:6], "\n") {
		t.Errorf("acl list --topic orders:\n%s", got)
	}
	if got := joinRows(fields(c.ok("acl", "list", "--topic", "orders", "--resource-pattern-type", "match", "--principal", "User:mallory"))[1:]); got != want[0] {
		t.Errorf("acl list --topic orders match, mallory:\n%s", got)
	}
	if got := joinRows(fields(c.ok("acl", "list", "--principal", "User:ops"))[1:]); got != strings.Join(want[9:], "\n") {
		t.Errorf("acl list --principal User:ops:\n%s", got)
	}

	// With a principal only what create would have added goes: operation
	// All is not alice's Read, so nothing; then her Read exactly.
	if got := fields(c.ok("acl", "delete", "--force", "--allow-principal", "User:alice", "--topic", "orders")); len(got) != 1 {
		t.Errorf("deleting alice's ALL on orders removed %v", got)
	}
	wantRows(t, "delete alice's read", c.okWithInput("y\n", "acl", "delete", "--allow-principal", "User:alice", "--operation", "read", "--topic", "orders"),
		"TOPIC orders LITERAL User:alice * READ ALLOW")
	// Without a principal, every ACL of the resource.
	wantRows(t, "delete the group's", c.ok("acl", "delete", "--force", "--group", "billing"),
		"GROUP billing LITERAL User:alice * READ ALLOW",
		"GROUP billing LITERAL User:alice * DESCRIBE ALLOW")
	if errOut := c.fails(1, "acl", "delete", "--topic", "ord", "--resource-pattern-type", "prefixed"); !strings.Contains(errOut, "not confirmed") {
		t.Errorf("delete without a y: %s", errOut)
	}
	wantRows(t, "delete with any", c.ok("acl", "delete", "--force", "--topic", "ord", "--resource-pattern-type", "any"),
		"TOPIC ord PREFIXED User:mallory 10.0.0.9 WRITE DENY")
	if n := len(fields(c.ok("acl", "list"))); n != 1+7 {
		t.Errorf("%d rows left, want the header and 7 ACLs", n)
	}

	for _, bad := range [][]string{
		{"acl", "create", "--allow-principal", "User:a", "--topic", "t", "--resource-pattern-type", "match"},
		{"acl", "create", "--allow-principal", "User:a", "--operation", "Fly", "--topic", "t"},
		{"acl", "create", "--allow-principal", "User:a"},
		{"acl", "create", "--topic", "t"},
		{"acl", "create", "--consumer", "--allow-principal", "User:a", "--topic", "t"},
		{"acl", "delete", "--force"},
	} {
		c.fails(2, bad...)
	}
	if errOut := c.fails(1, "acl", "create", "--allow-principal", "alice", "--topic", "t"); !strings.Contains(errOut, "INVALID_REQUEST") || !strings.Contains(errOut, "Could not parse principal from `alice`") {
		t.Errorf("a principal without its type: %s", errOut)
	}
}

// TestACLWithoutAuthorizer: the broker's refusal is the command's error.
func TestACLWithoutAuthorizer(t *testing.T) {
	c := startCLI(t)
	if errOut := c.fails(1, "acl", "list"); !strings.Contains(errOut, "SECURITY_DISABLED") {
		t.Errorf("acl list without an authorizer: %s", errOut)
	}
}

func joinRows(rows [][]string) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, " ")
	}
	return strings.Join(lines, "\n")
}

// wantRows checks a table's rows after its header, in order.
func wantRows(t *testing.T, what, out string, want ...string) {
	t.Helper()
	if got := joinRows(fields(out)[1:]); got != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, strings.Join(want, "\n"))
	}
}
