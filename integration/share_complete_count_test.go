package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// TestShareDeliveryCompleteCount: ReadShareGroupStateSummary v1 answers
// the DeliveryCompleteCount (KIP-1226) the share-partition wrote with its
// acknowledgements: the offsets at or above the start offset that are
// acknowledged or archived.
func TestShareDeliveryCompleteCount(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-dcc", 1, 6)
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-5:1"}) {
		t.Fatalf("acquired %v", got)
	}
	// 1 accepted, 3-4 rejected, 0 still acquired: the start offset stays
	// at 0 with 3 offsets complete above it.
	if codes := ackCodes(h.ack("m1", 1, ackBatch(1, 1, ackAccept), ackBatch(3, 4, ackReject))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge: %v", codes)
	}
	summary := func() kmsg.ReadShareGroupStateSummaryResponseTopicPartition {
		t.Helper()
		req := kmsg.NewPtrReadShareGroupStateSummaryRequest()
		req.SetVersion(1)
		req.GroupID = h.group
		rt := kmsg.NewReadShareGroupStateSummaryRequestTopic()
		rt.TopicID = h.id
		rp := kmsg.NewReadShareGroupStateSummaryRequestTopicPartition()
		rp.LeaderEpoch = -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, h.broker())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Topics[0].Partitions[0]
	}
	if p := summary(); p.ErrorCode != 0 || p.StartOffset != 0 || p.DeliveryCompleteCount != 3 {
		t.Fatalf("summary after the first acknowledgements: %+v, want start 0 and count 3", p)
	}
	// 0 accepted: the start offset moves past 0-1 to 2; 3-4 remain.
	if codes := ackCodes(h.ack("m1", 2, ackBatch(0, 0, ackAccept))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge: %v", codes)
	}
	if p := summary(); p.ErrorCode != 0 || p.StartOffset != 2 || p.DeliveryCompleteCount != 2 {
		t.Fatalf("summary after the start offset moved: %+v, want start 2 and count 2", p)
	}
}
