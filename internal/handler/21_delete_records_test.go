package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func deleteRecords(f *adminFixture, topic string, offsets map[int32]int64) map[int32]kmsg.DeleteRecordsResponseTopicPartition {
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	for p, o := range offsets {
		rt.Partitions = append(rt.Partitions, kmsg.DeleteRecordsRequestTopicPartition{Partition: p, Offset: o})
	}
	req.Topics = append(req.Topics, rt)
	resp := f.call(req, 2).(*kmsg.DeleteRecordsResponse)
	out := map[int32]kmsg.DeleteRecordsResponseTopicPartition{}
	for _, p := range resp.Topics[0].Partitions {
		out[p.Partition] = p
	}
	return out
}

func TestDeleteRecordsMovesTheLogStart(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 3, nil)
	for p := int32(0); p < 3; p++ {
		f.produce("t", p, 10, 0)
	}
	got := deleteRecords(f, "t", map[int32]int64{0: 4, 1: -1, 2: 11, 7: 1})
	if p := got[0]; p.ErrorCode != 0 || p.LowWatermark != 4 || f.log("t", 0).LogStartOffset() != 4 {
		t.Errorf("partition 0: %+v", p)
	}
	if p := got[1]; p.ErrorCode != 0 || p.LowWatermark != 10 {
		t.Errorf("partition 1 (to the high watermark): %+v", p)
	}
	if p := got[2]; p.ErrorCode != kerr.OffsetOutOfRange.Code || p.LowWatermark != -1 || f.log("t", 2).LogStartOffset() != 0 {
		t.Errorf("partition 2 (past the high watermark): %+v", p)
	}
	if p := got[7]; p.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("partition 7: %+v", p)
	}
	// The log start never moves back.
	if p := deleteRecords(f, "t", map[int32]int64{0: 2})[0]; p.ErrorCode != 0 || p.LowWatermark != 4 {
		t.Errorf("moving back: %+v", p)
	}
	if p := deleteRecords(f, "t", map[int32]int64{0: -5})[0]; p.ErrorCode != kerr.OffsetOutOfRange.Code {
		t.Errorf("negative offset: %+v", p)
	}
	if p := deleteRecords(f, "nope", map[int32]int64{0: 1})[0]; p.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown topic: %+v", p)
	}
}

func TestDeleteRecordsRefusesCompactedAndInternalTopics(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("compacted", 1, map[string]*string{"cleanup.policy": strp("compact")})
	f.createTopic("both", 1, map[string]*string{"cleanup.policy": strp("compact,delete")})
	f.createTopic(metadata.ConsumerOffsetsTopic, 1, nil)
	f.produce("compacted", 0, 3, 0)
	f.produce("both", 0, 3, 0)
	if p := deleteRecords(f, "compacted", map[int32]int64{0: 1})[0]; p.ErrorCode != kerr.PolicyViolation.Code {
		t.Errorf("compacted: %+v", p)
	}
	if p := deleteRecords(f, "both", map[int32]int64{0: 1})[0]; p.ErrorCode != 0 || p.LowWatermark != 1 {
		t.Errorf("compact,delete: %+v", p)
	}
	if p := deleteRecords(f, metadata.ConsumerOffsetsTopic, map[int32]int64{0: 0})[0]; p.ErrorCode != kerr.InvalidTopicException.Code {
		t.Errorf("internal topic: %+v", p)
	}
}
