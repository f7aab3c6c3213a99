package admincli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProduceAndConsumeFormats(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "events", "--partitions", "2")
	_, errOut, status := c.runWithInput("k1:v1\nk2:v:2\n:empty-key\n", "produce", "events", "-K", ":", "-H", "src=cli", "-H", "run=1", "-p", "1")
	if status != 0 || errOut != "produced 3 records to events\n" {
		t.Fatalf("produce: exit %d, stderr %q", status, errOut)
	}
	out := c.okWithInput("plain\n", "produce", "events", "--partition", "0", "--print-offsets")
	wantEqual(t, "print-offsets", out, "events/0@0\n")

	wantEqual(t, "partition 1, text with key and headers",
		c.ok("consume", "events", "-p", "1", "-o", "beginning", "-e", "-K", "=", "--print-headers"),
		"src:cli,run:1\tk1=v1\nsrc:cli,run:1\tk2=v:2\nsrc:cli,run:1\t=empty-key\n")
	wantEqual(t, "partition 0, value only", c.ok("consume", "events", "-p", "0", "--from-beginning", "--exit"), "plain\n")
	wantEqual(t, "hex", c.ok("consume", "events", "-p", "0", "-o", "beginning", "-e", "--format", "hex", "-K", " ", "--print-headers"),
		"NO_HEADERS\tnull 706c61696e\n")
	wantEqual(t, "offset 1", c.ok("consume", "events", "-p", "1", "-o", "1", "-e"), "v:2\nempty-key\n")
	wantEqual(t, "last record", c.ok("consume", "events", "-p", "1", "-o", "-1", "-e"), "empty-key\n")
	wantEqual(t, "count", c.ok("consume", "events", "-p", "1", "-o", "beginning", "-c", "2"), "v1\nv:2\n")
	wantEqual(t, "from the end, at once", c.ok("consume", "events", "-e"), "")
	all := strings.Split(strings.TrimSpace(c.ok("consume", "events", "-o", "beginning", "-e")), "\n")
	if len(all) != 4 {
		t.Errorf("both partitions: %q", all)
	}

	lines := strings.Split(strings.TrimSpace(c.ok("consume", "events", "-p", "1", "-o", "beginning", "-e", "--format", "json")), "\n")
	if len(lines) != 3 {
		t.Fatalf("json lines: %q", lines)
	}
	var first recordJSON
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Topic != "events" || *first.Partition != 1 || *first.Offset != 0 || *first.Key != "k1" || *first.Value != "v1" ||
		len(first.Headers) != 2 || first.Headers[0].Key != "src" || *first.Headers[0].Value != "cli" || *first.Timestamp <= 0 {
		t.Errorf("json record: %s", lines[0])
	}

	// consume's json is produce's input: a copy keeps keys, values,
	// headers and timestamps.
	c.ok("topic", "create", "copy", "--partitions", "1")
	c.okWithInput(strings.Join(lines, "\n")+"\n", "produce", "copy", "--format", "json")
	copied := strings.Split(strings.TrimSpace(c.ok("consume", "copy", "-o", "beginning", "-e", "--format", "json")), "\n")
	for i := range lines {
		var a, b recordJSON
		_ = json.Unmarshal([]byte(lines[i]), &a)
		_ = json.Unmarshal([]byte(copied[i]), &b)
		if *a.Key != *b.Key || *a.Value != *b.Value || *a.Timestamp != *b.Timestamp || len(a.Headers) != len(b.Headers) || b.Topic != "copy" {
			t.Errorf("copy of record %d: %s, original %s", i, copied[i], lines[i])
		}
	}

	if errOut := c.fails(1, "consume", "nosuchtopic", "-e"); !strings.Contains(errOut, "nosuchtopic") {
		t.Errorf("consuming an unknown topic: %s", errOut)
	}
	if _, errOut, status := c.runWithInput("no separator here\n", "produce", "events", "-K", ":"); status != 1 || !strings.Contains(errOut, "stdin line 1") {
		t.Errorf("a line without the separator: exit %d, %s", status, errOut)
	}
}

func TestGroupConsumeDescribeResetDelete(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "jobs", "--partitions", "2")
	c.okWithInput("a\nb\nc\n", "produce", "jobs", "-p", "0")
	c.okWithInput("d\n", "produce", "jobs", "-p", "1")

	got := strings.Fields(c.ok("consume", "jobs", "--group", "workers", "-o", "beginning", "-e"))
	if strings.Join(got, "") != "abcd" && len(got) != 4 {
		t.Errorf("group consume read %q", got)
	}
	list := c.ok("group", "list")
	if r := row(t, list, "workers"); r[1] != "Empty" || r[3] != "consumer" {
		t.Errorf("group list row %q:\n%s", r, list)
	}

	c.okWithInput("e\nf\n", "produce", "jobs", "-p", "1")
	desc := c.ok("group", "describe", "workers")
	for _, want := range []string{"GROUP        workers\n", "STATE        Empty\n", "MEMBERS      0\n",
		"TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  MEMBER-ID  CLIENT-ID  HOST\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe lacks %q:\n%s", want, desc)
		}
	}
	lagRows := map[string]string{}
	for _, r := range fields(desc) {
		if len(r) == 8 && r[0] == "jobs" {
			lagRows[r[1]] = strings.Join(r[2:5], " ")
		}
	}
	if lagRows["0"] != "3 3 0" || lagRows["1"] != "1 3 2" {
		t.Errorf("lag rows %v (want partition 0: 3 3 0, partition 1: 1 3 2):\n%s", lagRows, desc)
	}
	wantEqual(t, "resumed from the commits", c.ok("consume", "jobs", "-g", "workers", "-e"), "e\nf\n")

	dry := c.ok("group", "reset-offsets", "workers", "--topic", "jobs", "--to-earliest")
	if r := fields(dry); len(r) != 3 || strings.Join(r[1], " ") != "workers jobs 0 0" || strings.Join(r[2], " ") != "workers jobs 1 0" {
		t.Errorf("dry run:\n%s", dry)
	}
	for _, r := range fields(c.ok("group", "describe", "workers")) {
		if len(r) == 8 && r[0] == "jobs" && r[2] != "3" {
			t.Errorf("a dry run committed: %q", r)
		}
	}
	c.ok("group", "reset-offsets", "workers", "--all-topics", "--shift-by", "-2", "--execute")
	got = strings.Fields(c.ok("consume", "jobs", "-g", "workers", "-e"))
	if strings.Join(got, " ") != "b c e f" && strings.Join(got, " ") != "e f b c" {
		t.Errorf("after --shift-by -2 on both partitions read %q, want b c and e f", got)
	}
	c.ok("group", "reset-offsets", "workers", "--topic", "jobs", "--to-offset", "1", "--execute")
	if r := row(t, c.ok("group", "describe", "workers"), "jobs"); r[2] != "1" {
		t.Errorf("after --to-offset 1: %q", r)
	}

	wantEqual(t, "delete", c.ok("group", "delete", "workers"), "deleted group workers\n")
	if errOut := c.fails(1, "group", "describe", "workers"); !strings.Contains(errOut, "group workers does not exist") {
		t.Errorf("describing a deleted group: %s", errOut)
	}
}

// syncBuffer is an output a running command writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestConsumeFollowsUntilCancelled runs consume without an end: it prints
// records produced after it started and exits 0 when its context ends
// (Ctrl-C in the binary).
func TestConsumeFollowsUntilCancelled(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "live")
	c.okWithInput("old\n", "produce", "live")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out syncBuffer
	status := make(chan int, 1)
	go func() {
		status <- commandNamed(t, "consume").Run(ctx, []string{"live", "--bootstrap-server", c.bootstrap}, Streams{In: strings.NewReader(""), Out: &out, Err: &out})
	}()
	// Produce until consume, which started at the end, has printed one.
	for !strings.Contains(out.String(), "new\n") {
		select {
		case <-ctx.Done():
			t.Fatalf("consume printed %q before the deadline", out.String())
		case code := <-status:
			t.Fatalf("consume exited %d: %s", code, out.String())
		default:
		}
		c.okWithInput("new\n", "produce", "live")
	}
	cancel()
	if code := <-status; code != 0 || strings.Contains(out.String(), "old") {
		t.Errorf("exit %d after cancel, output %q (old is before the start)", code, out.String())
	}
}
