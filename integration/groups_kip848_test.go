package integration

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// start848Member is a franz-go consumer of the KIP-848 protocol
// (ConsumerGroupHeartbeat, server-side assignment) that tracks what it
// owns through its callbacks.
func start848Member(t *testing.T, addr, group, topic string) *groupMember {
	t.Helper()
	return startGroupMember(t, addr, group, topic,
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.AutoCommitInterval(100*time.Millisecond))
}

// neverDoubleOwned samples the members' ownership until stop closes and
// reports any partition two members claimed at once.
func neverDoubleOwned(members []*groupMember, stop <-chan struct{}) <-chan []int32 {
	out := make(chan []int32, 1)
	go func() {
		var bad []int32
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			seen := map[int32]bool{}
			for _, m := range members {
				for _, p := range m.owned() {
					if seen[p] {
						bad = append(bad, p)
					}
					seen[p] = true
				}
			}
			select {
			case <-stop:
				out <- bad
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

func TestKIP848ConsumersShareAndTakeOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b := startGroupBroker(t)
	admCl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	createAdminTopic(t, ctx, adm, "k848", 6)
	produceValues(t, ctx, b.Addr(), "k848", 60)

	var members []*groupMember
	for range 3 {
		members = append(members, start848Member(t, b.Addr(), "g848", "k848"))
	}
	stop := make(chan struct{})
	overlaps := neverDoubleOwned(members, stop)
	eventually(t, ctx, "3 members own 2 partitions each", func() bool {
		if !splitExactly(members, 6) {
			return false
		}
		for _, m := range members {
			if len(m.owned()) != 2 {
				return false
			}
		}
		return true
	})

	// The coordinator sees the same: a Stable consumer group.
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{"g848"}
	eventually(t, ctx, "the group is Stable with 3 members", func() bool {
		resp, err := req.RequestWith(ctx, admCl)
		return err == nil && len(resp.Groups) == 1 && resp.Groups[0].State == "Stable" && len(resp.Groups[0].Members) == 3
	})
	described, err := adm.DescribeConsumerGroups(ctx, "g848")
	if err != nil {
		t.Fatal(err)
	}
	wantGroupOperations(t, described["g848"].AuthorizedOperations)

	members[0].close()
	rest := members[1:]
	eventually(t, ctx, "the 2 remaining members take over all 6 partitions", func() bool {
		return splitExactly(rest, 6) && len(rest[0].owned()) == 3
	})
	// Commits carry member epochs; everything read gets committed.
	eventually(t, ctx, "all 60 records committed", func() bool {
		offs, err := adm.FetchOffsets(ctx, "g848")
		if err != nil {
			return false
		}
		var sum int64
		offs.Each(func(o kadm.OffsetResponse) { sum += o.At })
		return sum == 60
	})
	listed, err := adm.ListGroups(ctx)
	if err != nil || listed["g848"].ProtocolType != "consumer" || listed["g848"].State != "Stable" && listed["g848"].State != "Reconciling" {
		t.Fatalf("listed: %+v %v", listed["g848"], err)
	}
	close(stop)
	if bad := <-overlaps; len(bad) > 0 {
		t.Fatalf("partitions owned by two members at once: %v", bad)
	}
	for _, m := range rest {
		m.close()
	}
}
