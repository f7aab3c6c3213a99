package integration

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// TestShareGroupInitializesStateBeforeAssigning: as in Kafka 4.4, a share
// group's first heartbeat creates __share_group_state and initializes the
// subscribed partitions' state (state epoch the group epoch, start offset
// -1, leader epoch and delivered count 0), answering the join with an
// empty assignment; a later heartbeat gets the partitions at a new epoch.
func TestShareGroupInitializesStateBeforeAssigning(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "sg-init", 2, 0)
	join := h.shareHeartbeat("member-1", 0, h.topic)
	if join.ErrorCode != 0 || join.MemberEpoch != 2 || join.Assignment == nil || len(join.Assignment.TopicPartitions) != 0 {
		t.Fatalf("join: %+v", join)
	}
	m := &shareMember{id: "member-1", epoch: join.MemberEpoch}
	if epoch := h.settle(m); epoch != 3 || len(m.assigned) != 2 {
		t.Fatalf("after the initialization: epoch %d, assigned %v", epoch, m.assigned)
	}
	md := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr("__share_group_state")
	md.Topics = append(md.Topics, mt)
	mr, err := md.RequestWith(ctx, h.cl)
	if err != nil || len(mr.Topics) != 1 || mr.Topics[0].ErrorCode != 0 || !mr.Topics[0].IsInternal {
		t.Fatalf("__share_group_state after the first heartbeat: %+v %v", mr, err)
	}
	summary := kmsg.NewPtrReadShareGroupStateSummaryRequest()
	summary.GroupID = h.group
	st := kmsg.NewReadShareGroupStateSummaryRequestTopic()
	st.TopicID = h.id
	for p := range int32(2) {
		sp := kmsg.NewReadShareGroupStateSummaryRequestTopicPartition()
		sp.Partition, sp.LeaderEpoch = p, -1
		st.Partitions = append(st.Partitions, sp)
	}
	summary.Topics = append(summary.Topics, st)
	resp, err := summary.RequestWith(ctx, h.broker())
	if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 2 {
		t.Fatalf("ReadShareGroupStateSummary: %+v %v", resp, err)
	}
	for _, p := range resp.Topics[0].Partitions {
		if p.ErrorCode != 0 || p.StateEpoch != 2 || p.StartOffset != -1 || p.LeaderEpoch != 0 || p.DeliveryCompleteCount != 0 {
			t.Fatalf("initialized state of partition %d: %+v", p.Partition, p)
		}
	}
}
