package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	scaleMembers    = 50
	scalePartitions = 500
	scaleLeaving    = 10
	// scaleRebalanceTimeout is franz-go's default rebalance timeout: the group must settle within it.
	scaleRebalanceTimeout = 60 * time.Second
)

// stableAssignment reports whether the coordinator describes the group as Stable with exactly
// `members` members that between them own every partition of topic exactly once, and every
// client's own view (its assigned callbacks) agrees with that.
func stableAssignment(ctx context.Context, adm *kadm.Client, group, topic string, members []*groupMember) (bool, string) {
	if !splitExactly(members, scalePartitions) {
		return false, "clients' own views do not split the partitions exactly"
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	described, err := adm.DescribeGroups(dctx, group)
	if err != nil {
		return false, err.Error()
	}
	g := described[group]
	if g.Err != nil || g.State != "Stable" || len(g.Members) != len(members) {
		return false, fmt.Sprintf("group state %q with %d members (err %v)", g.State, len(g.Members), g.Err)
	}
	owner := map[int32]string{}
	for _, m := range g.Members {
		ca, ok := m.Assigned.AsConsumer()
		if !ok {
			return false, "member assignment is not a consumer assignment"
		}
		for _, t := range ca.Topics {
			if t.Topic != topic {
				return false, "assignment names topic " + t.Topic
			}
			for _, p := range t.Partitions {
				if prev, dup := owner[p]; dup {
					return false, fmt.Sprintf("partition %d owned by %s and %s", p, prev, m.MemberID)
				}
				owner[p] = m.MemberID
			}
		}
	}
	if len(owner) != scalePartitions {
		return false, fmt.Sprintf("coordinator assigns %d of %d partitions", len(owner), scalePartitions)
	}
	return true, ""
}

// waitStable polls stableAssignment until it holds or the rebalance timeout passes.
func waitStable(t *testing.T, ctx context.Context, adm *kadm.Client, group, topic string, members []*groupMember) time.Duration {
	t.Helper()
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, scaleRebalanceTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, why := stableAssignment(wctx, adm, group, topic, members)
		if ok {
			return time.Since(start)
		}
		select {
		case <-wctx.Done():
			t.Fatalf("group %s not stable within %v: %s", group, scaleRebalanceTimeout, why)
		case <-tick.C:
		}
	}
}

// TestFranzGoGroupOf50MembersOver500Partitions: 50 franz-go members (one client each) settle on
// an assignment where every one of 500 partitions has exactly one owner, and settle again after
// 10 members leave at once.
func TestFranzGoGroupOf50MembersOver500Partitions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 50 group members")
	}
	b := startGroupBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*scaleRebalanceTimeout)
	defer cancel()
	topic, group := "scale-topic", "scale-group"
	adm := newAdmin(t, b.Addr())
	if _, err := adm.CreateTopic(ctx, scalePartitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}

	members := make([]*groupMember, scaleMembers)
	for i := range members {
		members[i] = startMember(t, b.Addr(), group, topic, kgo.CooperativeStickyBalancer())
	}
	closed := 0
	defer func() {
		var wg sync.WaitGroup
		for _, m := range members[closed:] {
			wg.Add(1)
			go func() { defer wg.Done(); m.close() }()
		}
		wg.Wait()
	}()
	t.Logf("%d members stable after %v", scaleMembers, waitStable(t, ctx, adm, group, topic, members))

	var wg sync.WaitGroup
	for _, m := range members[:scaleLeaving] {
		wg.Add(1)
		go func() { defer wg.Done(); m.close() }()
	}
	wg.Wait()
	closed = scaleLeaving
	remaining := members[scaleLeaving:]
	t.Logf("%d members stable %v after %d left", len(remaining), waitStable(t, ctx, adm, group, topic, remaining), scaleLeaving)
}
