package admincli

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestShareGroup: a share group read with consume --share-group from the
// earliest offset (its group config) prints every record once; group list
// shows it with type share; group describe shows its live member with the
// partitions assigned to it; once the member is gone, delete removes it.
func TestShareGroup(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "jobs", "--partitions", "2")
	c.okWithInput("a\nb\nc\n", "produce", "jobs", "-p", "0")
	c.okWithInput("d\n", "produce", "jobs", "-p", "1")
	c.ok("config", "set", "group", "workers", "share.auto.offset.reset=earliest")

	if errOut := c.fails(2, "consume", "jobs", "--share-group", "workers", "-o", "beginning"); !strings.Contains(errOut, "--share-group and --offset") {
		t.Errorf("--share-group with --offset: %s", errOut)
	}
	got := strings.Fields(c.ok("consume", "jobs", "--share-group", "workers", "--count", "4"))
	slices.Sort(got)
	if strings.Join(got, " ") != "a b c d" {
		t.Errorf("consume --share-group printed %q, want a b c d", got)
	}
	if r := row(t, c.ok("group", "list"), "workers"); r[2] != "share" || r[3] != "share" {
		t.Errorf("group list row %q", r)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	member, err := kgo.NewClient(kgo.SeedBrokers(c.bootstrap), kgo.ClientID("share-member"), kgo.ShareGroup("workers"), kgo.ConsumeTopics("jobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	c.okWithInput("e\n", "produce", "jobs", "-p", "0")
	for member.PollFetches(ctx).NumRecords() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the share member read nothing")
		}
	}
	desc := c.ok("group", "describe", "workers")
	for _, want := range []string{"GROUP        workers\n", "TYPE         share\n", "STATE        Stable\n", "MEMBERS      1\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe lacks %q:\n%s", want, desc)
		}
	}
	var memberRow, partitions []string
	for _, r := range fields(desc) {
		switch {
		case len(r) == 4 && r[1] == "share-member":
			memberRow = r
		case len(r) == 6 && r[0] == "jobs":
			partitions = append(partitions, r[1]+" "+r[3]+" "+r[5])
		}
	}
	if memberRow == nil || memberRow[3] != "jobs:0,1" {
		t.Fatalf("member row %q, want the assignment jobs:0,1:\n%s", memberRow, desc)
	}
	// PARTITION LOG-END-OFFSET MEMBER-ID
	if want := "0 4 " + memberRow[0] + ";1 1 " + memberRow[0]; strings.Join(partitions, ";") != want {
		t.Errorf("partition rows %q, want %q:\n%s", partitions, want, desc)
	}

	if errOut := c.fails(1, "group", "delete", "workers"); !strings.Contains(errOut, "NON_EMPTY_GROUP") {
		t.Errorf("deleting a share group with a member: %s", errOut)
	}
	member.Close()
	for !strings.Contains(c.ok("group", "describe", "workers"), "STATE        Empty\n") {
		if ctx.Err() != nil {
			t.Fatal("the share group did not become Empty after its member left")
		}
	}
	if out := c.ok("group", "delete", "workers"); out != "deleted group workers\n" {
		t.Errorf("delete: %q", out)
	}
	if errOut := c.fails(1, "group", "describe", "workers"); !strings.Contains(errOut, "group workers does not exist") {
		t.Errorf("describing the deleted share group: %s", errOut)
	}
}
