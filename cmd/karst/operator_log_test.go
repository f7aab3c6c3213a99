package main

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// karstCommand runs an admin command of the binary against addr and fails
// the test unless it exits 0.
func karstCommand(t *testing.T, ctx context.Context, bin, addr, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, append(args, "--bootstrap-server", addr)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("karst %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitForLog waits until the broker has logged a line matching pattern
// and returns it.
func waitForLog(t *testing.T, ctx context.Context, b *servedBroker, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for {
		if m := re.FindString(b.laterLog()); m != "" {
			return m
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the broker never logged %q; it logged:\n%s", pattern, b.laterLog())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// joinGroup consumes topic in group with franz-go until it is assigned a
// partition, then leaves.
func joinGroup(t *testing.T, ctx context.Context, addr, group, topic string) {
	t.Helper()
	assigned := make(chan struct{}, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			select {
			case assigned <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	go func() {
		for ctx.Err() == nil && !cl.PollFetches(ctx).IsClientClosed() {
		}
	}()
	select {
	case <-assigned:
	case <-ctx.Done():
		t.Fatalf("group %s: no assignment", group)
	}
}

// TestOperatorEventsLogAtInfoAndLevelsChangeAtRunTime runs the binary as
// an operator would and reads its log: topic creation and deletion, group
// joins and rebalances, and retention's deletions are INFO lines naming
// the topic, group or partition; `karst config set broker-logger` turns
// the group coordinator's logger down to WARN, which silences its lines
// until it is set back.
func TestOperatorEventsLogAtInfoAndLevelsChangeAtRunTime(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := startServe(t, ctx, exec.CommandContext(ctx, bin, "serve",
		"--override", "listeners=PLAINTEXT://127.0.0.1:0",
		"--override", "log.dirs="+t.TempDir(),
		"--override", "group.initial.rebalance.delay.ms=0",
		"--override", "log.retention.check.interval.ms=100"))

	karstCommand(t, ctx, bin, b.addr, "", "topic", "create", "events", "--partitions", "1")
	waitForLog(t, ctx, b, `level=INFO msg="created topic".* topic=events`)

	joinGroup(t, ctx, b.addr, "loud", "events")
	waitForLog(t, ctx, b, `level=INFO msg="member joined group".* group=loud .*client_id=kgo`)
	waitForLog(t, ctx, b, `level=INFO msg="preparing to rebalance group".* group=loud state=Empty`)
	waitForLog(t, ctx, b, `level=INFO msg="stabilized group".* group=loud generation=1 protocol=\S+ leader=\S+ members=1`)

	out := karstCommand(t, ctx, bin, b.addr, "", "config", "set", "broker-logger", "1", "karst.group=WARN")
	if !strings.Contains(out, "karst.group=WARN") {
		t.Fatalf("config set answered:\n%s", out)
	}
	// Kafka logs a level change at WARN, so it shows whatever the levels.
	waitForLog(t, ctx, b, `level=WARN msg="updated the log level" logger=karst.group level=WARN`)
	joinGroup(t, ctx, b.addr, "quiet", "events")
	karstCommand(t, ctx, bin, b.addr, "", "config", "set", "broker-logger", "1", "--delete", "karst.group")
	joinGroup(t, ctx, b.addr, "loud-again", "events")
	// The log is ordered: once loud-again's line is in, quiet's would be.
	waitForLog(t, ctx, b, `msg="member joined group".* group=loud-again`)
	if strings.Contains(b.laterLog(), "group=quiet ") {
		t.Fatalf("the group logger at WARN still wrote INFO lines:\n%s", b.laterLog())
	}

	karstCommand(t, ctx, bin, b.addr, "", "topic", "create", "short-lived", "--partitions", "1",
		"--config", "retention.ms=1", "--config", "segment.ms=1")
	// The second record, from a second process started well over
	// segment.ms later, rolls the first one's segment, which retention.ms
	// has expired by then.
	karstCommand(t, ctx, bin, b.addr, "first\n", "produce", "short-lived")
	waitForLog(t, ctx, b, `msg="created topic".* topic=short-lived`)
	karstCommand(t, ctx, bin, b.addr, "second\n", "produce", "short-lived")
	// A pass that comes late also finds the second record's segment
	// expired (retention.ms=1 rolls the active one, as Kafka does).
	waitForLog(t, ctx, b, `level=INFO msg="retention deleted segments" partition=short-lived-0 segments=[12] `)

	karstCommand(t, ctx, bin, b.addr, "", "topic", "delete", "events")
	waitForLog(t, ctx, b, `level=INFO msg="deleted topic".* topic=events`)
}
