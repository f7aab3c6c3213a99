package bench

import (
	"context"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

func TestRebalanceReportsTimeToStableGroup(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res := Rebalance(ctx, RebalanceConfig{Addr: b.Addr(), Members: 4, Partitions: 12, Timeout: 45 * time.Second})
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if ms, ok := res.Float("rebalance_ms"); !ok || ms <= 0 {
		t.Errorf("rebalance_ms %v in %s", ms, res.Line())
	}
	if n, _ := res.Int("members"); n != 4 {
		t.Errorf("members %d", n)
	}
}

func TestRebalanceRejectsUnknownProtocol(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := Rebalance(ctx, RebalanceConfig{Addr: b.Addr(), Members: 1, Partitions: 1, Protocol: "bogus", Timeout: 10 * time.Second})
	if res.Err() == nil {
		t.Fatalf("want an error, got %s", res.Line())
	}
}

func TestCommitsCountsSynchronousCommits(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res := Commits(ctx, CommitsConfig{Addr: b.Addr(), Partitions: 3, Duration: time.Second})
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n, _ := res.Int("commits"); n <= 0 {
		t.Errorf("no commits in %s", res.Line())
	}
	if p99, _ := res.Float("p99_ms"); p99 <= 0 {
		t.Errorf("p99 %v", p99)
	}
}

// A consumer-protocol (KIP-848) group settles too, and the figure covers
// the coordinator's ConsumerGroupDescribe saying Stable.
func TestRebalanceConsumerProtocol(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res := Rebalance(ctx, RebalanceConfig{Addr: b.Addr(), Members: 3, Partitions: 6, Protocol: "consumer", Timeout: 45 * time.Second})
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if ms, ok := res.Float("rebalance_ms"); !ok || ms <= 0 {
		t.Errorf("rebalance_ms %v in %s", ms, res.Line())
	}
	if p, _ := res.String("protocol"); p != "consumer" {
		t.Errorf("protocol %q in %s", p, res.Line())
	}
}
