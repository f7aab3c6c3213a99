package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

// TestGroupPartitionReloadKeepsGroupsWithoutRebalance: unloading and
// loading again, at run time, the __consumer_offsets partitions of a
// classic group and a KIP-848 group that franz-go consumers are in keeps
// their committed offsets, and the members carry on at the same
// generation and epochs with the same partitions, committing what they
// read after it, without a rebalance.
func TestGroupPartitionReloadKeepsGroupsWithoutRebalance(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	b := startGroupBroker(t)
	admCl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	const topic = "reload"
	createAdminTopic(t, ctx, adm, topic, 4)
	produceValues(t, ctx, b.Addr(), topic, 40)

	classic, kip848 := "reload-classic", "reload-848"
	members := map[string]*groupMember{
		classic: startGroupMember(t, b.Addr(), classic, topic, kgo.Balancers(kgo.CooperativeStickyBalancer()),
			kgo.HeartbeatInterval(200*time.Millisecond), kgo.AutoCommitInterval(100*time.Millisecond)),
		kip848: start848Member(t, b.Addr(), kip848, topic),
	}
	defer func() {
		for _, m := range members {
			m.close()
		}
	}()
	committed := func(g string) int64 {
		offs, err := adm.FetchOffsets(ctx, g)
		if err != nil {
			return -1
		}
		var sum int64
		offs.Each(func(o kadm.OffsetResponse) { sum += o.At })
		return sum
	}
	for g, m := range members {
		eventually(t, ctx, g+" owns all 4 partitions and committed all 40 records", func() bool {
			return len(m.owned()) == 4 && committed(g) == 40
		})
	}
	epochs := func() []int32 {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{kip848}
		resp, err := req.RequestWith(ctx, admCl)
		if err != nil || len(resp.Groups) != 1 || resp.Groups[0].ErrorCode != 0 || len(resp.Groups[0].Members) != 1 {
			t.Fatalf("ConsumerGroupDescribe: %+v %v", resp, err)
		}
		g := resp.Groups[0]
		return []int32{g.Epoch, g.AssignmentEpoch, g.Members[0].MemberEpoch}
	}
	// The classic member's generation, which a rebalance would bump.
	classicGeneration := func() int32 {
		_, gen := members[classic].cl.GroupMetadata()
		return gen
	}
	genBefore, epochsBefore := classicGeneration(), epochs()

	meta, err := adm.Metadata(ctx, "__consumer_offsets")
	if err != nil {
		t.Fatal(err)
	}
	n := int32(len(meta.Topics["__consumer_offsets"].Partitions))
	reloaded := map[int32]bool{}
	for g := range members {
		p := group.PartitionFor(g, n)
		if !reloaded[p] {
			if err := b.ReloadGroupPartition(p); err != nil {
				t.Fatalf("reloading partition %d: %v", p, err)
			}
			reloaded[p] = true
		}
	}
	for g := range members {
		if got := committed(g); got != 40 {
			t.Fatalf("%s committed %d after the reload, want 40", g, got)
		}
	}

	produceValues(t, ctx, b.Addr(), topic, 40)
	for g, m := range members {
		eventually(t, ctx, g+" committed all 80 records after the reload", func() bool {
			return committed(g) == 80
		})
		if got := m.owned(); !slices.Equal(got, []int32{0, 1, 2, 3}) {
			t.Fatalf("%s owns %v after the reload", g, got)
		}
	}
	if g := classicGeneration(); g != genBefore {
		t.Fatalf("classic generation %d after the reload, was %d: the group rebalanced", g, genBefore)
	}
	if e := epochs(); !slices.Equal(e, epochsBefore) {
		t.Fatalf("KIP-848 group and member epochs %v after the reload, were %v: the group rebalanced", e, epochsBefore)
	}
}
