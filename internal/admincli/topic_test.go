package admincli

import (
	"strings"
	"testing"
)

func TestTopicCreateListDescribeAlterDelete(t *testing.T) {
	c := startCLI(t)
	wantEqual(t, "create", c.ok("topic", "create", "orders", "--partitions", "3", "--replication-factor", "1", "--config", "retention.ms=3600000", "--config", "cleanup.policy=compact"),
		"created topic orders: 3 partitions, replication factor 1\n")
	c.ok("topic", "create", "audit")
	if errOut := c.fails(1, "topic", "create", "orders", "--partitions", "3"); !strings.Contains(errOut, "TOPIC_ALREADY_EXISTS") {
		t.Errorf("second create's error: %s", errOut)
	}

	list := c.ok("topic", "list")
	if got := strings.Join(row(t, list, "orders"), " "); got != "orders 3 1" {
		t.Errorf("list row for orders: %q\n%s", got, list)
	}
	if got := row(t, list, "audit"); got[1] != "1" { // karsttest's num.partitions
		t.Errorf("list row for audit: %q", got)
	}
	if strings.Contains(list, "__consumer_offsets") {
		t.Errorf("list shows internal topics without --internal:\n%s", list)
	}

	desc := c.ok("topic", "describe", "orders")
	for _, want := range []string{"TOPIC        orders\n", "PARTITIONS   3\n", "REPLICATION  1\n",
		"CONFIGS\n  cleanup.policy=compact\n  retention.ms=3600000\n\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe lacks %q:\n%s", want, desc)
		}
	}
	if id := row(t, desc, "ID"); len(id) != 2 || len(id[1]) != 22 || strings.ContainsAny(id[1], "+/=") {
		t.Errorf("topic id %q: want Kafka's 22-character URL-safe base64", id)
	}
	for _, p := range []string{"0", "1", "2"} {
		if r := row(t, desc, p); len(r) != 7 || r[3] != r[1] || r[4] != r[1] || r[5] != "0" || r[6] != "0" {
			t.Errorf("partition %s row %q (want leader = replicas = ISR, offsets 0 0)", p, r)
		}
	}

	wantEqual(t, "alter", c.ok("topic", "alter", "orders", "--partitions", "5", "--config", "retention.ms=60000", "--delete-config", "cleanup.policy"),
		"topic orders: 5 partitions\nupdated topic \"orders\": retention.ms=60000, cleanup.policy removed\n")
	desc = c.ok("topic", "describe", "orders")
	if !strings.Contains(desc, "PARTITIONS   5\n") || !strings.Contains(desc, "CONFIGS\n  retention.ms=60000\n\n") {
		t.Errorf("describe after alter:\n%s", desc)
	}
	if errOut := c.fails(1, "topic", "alter", "orders", "--partitions", "2"); !strings.Contains(errOut, "INVALID_PARTITIONS") {
		t.Errorf("shrinking partitions: %s", errOut)
	}

	wantEqual(t, "delete", c.ok("topic", "delete", "orders", "audit"), "deleted topic audit\ndeleted topic orders\n")
	if list := c.ok("topic", "list"); strings.Contains(list, "orders") {
		t.Errorf("orders listed after delete:\n%s", list)
	}
	if errOut := c.fails(1, "topic", "describe", "orders"); !strings.Contains(errOut, "UNKNOWN_TOPIC_OR_PARTITION") {
		t.Errorf("describing a deleted topic: %s", errOut)
	}
}

func TestUsageMistakesExitTwoWithHelp(t *testing.T) {
	c := &cli{t: t, bootstrap: "127.0.0.1:1"} // never dialled
	for _, args := range [][]string{
		{"topic"}, {"topic", "frobnicate"}, {"topic", "create"}, {"topic", "create", "x", "--partitions", "many"},
		{"topic", "alter", "x"}, {"consume", "t", "--offset", "middle"}, {"consume", "t", "--group", "g", "--partition", "0"},
		{"produce"}, {"produce", "t", "--acks", "2"}, {"config", "get", "cluster", "x"}, {"config", "set", "topic", "t"},
		{"group", "reset-offsets", "g", "--all-topics"}, {"cluster", "info", "extra"},
	} {
		errOut := c.fails(2, args...)
		if !strings.Contains(errOut, "usage: karst ") {
			t.Errorf("karst %s: stderr has no usage:\n%s", strings.Join(args, " "), errOut)
		}
	}
	for _, args := range [][]string{{"topic", "--help"}, {"topic", "create", "--help"}, {"consume", "-h"}, {"group", "describe", "--help"}} {
		out, _, status := c.runWithInput("", args...)
		if status != 0 || !strings.HasPrefix(out, "usage: karst ") {
			t.Errorf("karst %s: exit %d\n%s", strings.Join(args, " "), status, out)
		}
	}
}
