package admincli

import (
	"strings"
	"testing"
)

// TestUserSetDescribeListDelete: SCRAM users made and changed with the
// CLI are what DescribeUserScramCredentials answers, for both mechanisms,
// and deleting the last credential removes the user.
func TestUserSetDescribeListDelete(t *testing.T) {
	c := startCLI(t)
	if out := c.ok("user", "list"); strings.TrimSpace(out) != "USER  MECHANISM  ITERATIONS" {
		t.Fatalf("no users yet:\n%s", out)
	}
	if out := c.okWithInput("alice-secret\n", "user", "set", "alice"); !strings.Contains(out, "set SCRAM-SHA-256 credential of user alice (4096 iterations)") {
		t.Fatalf("set from stdin:\n%s", out)
	}
	c.ok("user", "set", "alice", "--mechanism", "SCRAM-SHA-512", "--iterations", "8192", "--password", "other")
	c.ok("user", "set", "bob", "--password", "bob-secret")

	want := [][]string{{"USER", "MECHANISM", "ITERATIONS"}, {"alice", "SCRAM-SHA-256", "4096"}, {"alice", "SCRAM-SHA-512", "8192"}, {"bob", "SCRAM-SHA-256", "4096"}}
	if got := fields(c.ok("user", "list")); !equalRows(got, want) {
		t.Fatalf("user list: %v, want %v", got, want)
	}
	if got := fields(c.ok("user", "describe", "bob")); !equalRows(got, [][]string{want[0], want[3]}) {
		t.Fatalf("user describe bob: %v", got)
	}

	if errOut := c.fails(1, "user", "describe", "carol"); !strings.Contains(errOut, "describing user carol: RESOURCE_NOT_FOUND") {
		t.Fatalf("an unknown user: %s", errOut)
	}
	if errOut := c.fails(1, "user", "set", "carol", "--iterations", "10", "--password", "x"); !strings.Contains(errOut, "carol") {
		t.Fatalf("iterations below 4096: %s", errOut)
	}
	if errOut := c.fails(2, "user", "set", "carol", "--mechanism", "PLAIN", "--password", "x"); !strings.Contains(errOut, "unknown --mechanism") {
		t.Fatalf("an unknown mechanism: %s", errOut)
	}

	c.ok("user", "delete", "alice")
	c.ok("user", "delete", "bob")
	if got := fields(c.ok("user", "list")); !equalRows(got, [][]string{want[0], want[2]}) {
		t.Fatalf("after the deletes: %v", got)
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], " ") != strings.Join(b[i], " ") {
			return false
		}
	}
	return true
}
