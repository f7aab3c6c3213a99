package admincli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// TestGroupDescribeKIP848: a group of the KIP-848 consumer protocol, which
// DescribeGroups does not describe ("not a classic group", as in Kafka),
// is described as kafka-consumer-groups --describe shows it: its member,
// and per assigned partition the committed offset, the log end and the
// lag, a partition assigned but never committed lagging by all it holds.
// The list shows its type consumer and protocol type consumer.
func TestGroupDescribeKIP848(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "events", "--partitions", "3")
	c.okWithInput("a\nb\nc\nd\n", "produce", "events", "-p", "0")
	c.okWithInput("e\nf\ng\n", "produce", "events", "-p", "1")
	c.okWithInput("h\ni\n", "produce", "events", "-p", "2")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	member := karsttest.KIP848Member(ctx, t, c.bootstrap, "kip848-readers", "kip848-member", "events", 9, 0)
	defer member.Close()

	desc := c.ok("group", "describe", "kip848-readers")
	for _, want := range []string{"GROUP        kip848-readers\n", "STATE        Stable\n", "MEMBERS      1\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe lacks %q:\n%s", want, desc)
		}
	}
	lagRows := map[string]string{}
	for _, r := range fields(desc) {
		if len(r) == 8 && r[0] == "events" {
			lagRows[r[1]] = strings.Join(r[2:5], " ") + " " + r[6]
		}
	}
	for p, want := range map[string]string{"0": "4 4 0 kip848-member", "1": "- 3 - kip848-member", "2": "- 2 - kip848-member"} {
		if lagRows[p] != want {
			t.Errorf("partition %s: %q, want %q:\n%s", p, lagRows[p], want, desc)
		}
	}
	list := c.ok("group", "list")
	if r := row(t, list, "kip848-readers"); r[1] != "Stable" || r[2] != "consumer" || r[3] != "consumer" {
		t.Errorf("group list row %q:\n%s", r, list)
	}

	// Kafka resets only an inactive group's offsets; the member's leave
	// makes it Empty.
	if errOut := c.fails(1, "group", "reset-offsets", "kip848-readers", "--all-topics", "--to-earliest", "--execute"); !strings.Contains(errOut, "its state is Stable") {
		t.Errorf("resetting a Stable group: %s", errOut)
	}
	member.Close()
	for !strings.Contains(c.ok("group", "describe", "kip848-readers"), "STATE        Empty\n") {
		if ctx.Err() != nil {
			t.Fatal("the group did not become Empty after its member left")
		}
	}
	c.ok("group", "reset-offsets", "kip848-readers", "--all-topics", "--to-earliest", "--execute")
	if r := row(t, c.ok("group", "describe", "kip848-readers"), "events"); strings.Join(r[:5], " ") != "events 0 0 4 4" {
		t.Errorf("after --to-earliest: %q", r)
	}
}
