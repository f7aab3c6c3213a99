package admincli

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestShareGroupResetOffsets: reset-offsets of a share group moves its
// share-partition start offsets (AlterShareGroupOffsets) as
// kafka-share-groups --reset-offsets does: a dry run changes nothing, with
// --execute a consume --share-group reads again from the new offsets,
// --to-datetime finds the first record at or after the time, and a group
// with a member or --shift-by is refused.
func TestShareGroupResetOffsets(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "jobs", "--partitions", "2")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	producer, err := kgo.NewClient(kgo.SeedBrokers(c.bootstrap), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	// Partition 0 holds a..d an hour apart from 2026-01-01T00:00Z; 1 holds e.
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var records []*kgo.Record
	for i, v := range []string{"a", "b", "c", "d"} {
		records = append(records, &kgo.Record{Topic: "jobs", Partition: 0, Value: []byte(v), Timestamp: base.Add(time.Duration(i) * time.Hour)})
	}
	records = append(records, &kgo.Record{Topic: "jobs", Partition: 1, Value: []byte("e"), Timestamp: base})
	if err := producer.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	c.ok("config", "set", "group", "workers", "share.auto.offset.reset=earliest")
	readAll := func(what string, count int, want string) {
		t.Helper()
		got := strings.Fields(c.ok("consume", "jobs", "--share-group", "workers", "--count", strconv.Itoa(count)))
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%s: consume --share-group read %q, want %s", what, got, want)
		}
	}
	readAll("first read", 5, "a b c d e")
	waitEmpty := func() {
		t.Helper()
		for !strings.Contains(c.ok("group", "describe", "workers"), "STATE        Empty\n") {
			if ctx.Err() != nil {
				t.Fatal("the share group did not become Empty")
			}
		}
	}
	waitEmpty()

	// startOffsets is PARTITION: START-OFFSET LOG-END-OFFSET LAG.
	startOffsets := func() map[string]string {
		starts := map[string]string{}
		for _, r := range fields(c.ok("group", "describe", "workers")) {
			if len(r) == 6 && r[0] == "jobs" {
				starts[r[1]] = strings.Join(r[2:5], " ")
			}
		}
		return starts
	}
	before := startOffsets()
	if before["0"] != "4 4 0" || before["1"] != "1 1 0" {
		t.Errorf("after all was read the start offsets, ends and lag are %v, want 0: 4 4 0, 1: 1 1 0", before)
	}
	dry := c.ok("group", "reset-offsets", "workers", "--topic", "jobs", "--to-earliest")
	if r := fields(dry); len(r) != 3 || strings.Join(r[1], " ") != "workers jobs 0 0" || strings.Join(r[2], " ") != "workers jobs 1 0" {
		t.Errorf("dry run:\n%s", dry)
	}
	if after := startOffsets(); !maps.Equal(after, before) {
		t.Errorf("the dry run moved the start offsets from %v to %v", before, after)
	}

	c.ok("group", "reset-offsets", "workers", "--all-topics", "--to-earliest", "--execute")
	if starts := startOffsets(); starts["0"] != "0 4 4" || starts["1"] != "0 1 1" {
		t.Errorf("after --to-earliest --execute the start offsets, ends and lag are %v, want 0: 0 4 4, 1: 0 1 1", starts)
	}
	readAll("after --to-earliest", 5, "a b c d e")
	waitEmpty()

	out := c.ok("group", "reset-offsets", "workers", "--topic", "jobs", "--to-datetime", "2026-01-01T02:00:00.000Z", "--execute")
	if r := fields(out); len(r) != 3 || strings.Join(r[1], " ") != "workers jobs 0 2" || strings.Join(r[2], " ") != "workers jobs 1 1" {
		t.Errorf("--to-datetime 02:00Z, want partition 0 at 2 (c) and partition 1 at its end 1:\n%s", out)
	}
	readAll("after --to-datetime", 2, "c d")
	waitEmpty()

	c.ok("group", "reset-offsets", "workers", "--topic", "jobs", "--to-offset", "3", "--execute")
	readAll("after --to-offset 3", 1, "d")
	waitEmpty()

	if errOut := c.fails(1, "group", "reset-offsets", "workers", "--all-topics", "--shift-by", "-1"); !strings.Contains(errOut, "no --shift-by") {
		t.Errorf("--shift-by for a share group: %s", errOut)
	}
	if errOut := c.fails(2, "group", "reset-offsets", "workers", "--all-topics", "--to-datetime", "yesterday"); !strings.Contains(errOut, "YYYY-MM-DDThh:mm:ss.sss") {
		t.Errorf("a malformed --to-datetime: %s", errOut)
	}

	member, err := kgo.NewClient(kgo.SeedBrokers(c.bootstrap), kgo.ShareGroup("workers"), kgo.ConsumeTopics("jobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	for !strings.Contains(c.ok("group", "describe", "workers"), "STATE        Stable\n") {
		pollCtx, pollCancel := context.WithTimeout(ctx, time.Second)
		member.PollFetches(pollCtx)
		pollCancel()
		if ctx.Err() != nil {
			t.Fatal("the share member did not join")
		}
	}
	// Kafka's kafka-share-groups refuses a group with members even for a dry run.
	if errOut := c.fails(1, "group", "reset-offsets", "workers", "--all-topics", "--to-latest"); !strings.Contains(errOut, "share group workers is not empty") {
		t.Errorf("resetting a share group with a member: %s", errOut)
	}
}
