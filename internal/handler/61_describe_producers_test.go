package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDescribeProducersListsOpenTransactions(t *testing.T) {
	f := lsoFixture(t)
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic, rt.Partitions = "t", []int32{0, 5}
	missing := kmsg.NewDescribeProducersRequestTopic()
	missing.Topic, missing.Partitions = "nope", []int32{0}
	req.Topics = append(req.Topics, rt, missing)
	resp := f.call(req, 0).(*kmsg.DescribeProducersResponse)

	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 || len(p.ActiveProducers) != 2 {
		t.Fatalf("partition 0: %+v", p)
	}
	aborted, open := p.ActiveProducers[0], p.ActiveProducers[1]
	if aborted.ProducerID != 11 || aborted.CurrentTxnStartOffset != -1 || aborted.CoordinatorEpoch != 3 || aborted.LastSequence != 1 {
		t.Errorf("producer 11: %+v", aborted)
	}
	if open.ProducerID != 12 || open.CurrentTxnStartOffset != 4 || open.CoordinatorEpoch != -1 || open.ProducerEpoch != 0 || open.LastTimestamp != 1_700_000_000_000 {
		t.Errorf("producer 12: %+v", open)
	}
	if p := resp.Topics[0].Partitions[1]; p.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("partition 5: %+v", p)
	}
	if p := resp.Topics[1].Partitions[0]; p.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown topic: %+v", p)
	}
}
