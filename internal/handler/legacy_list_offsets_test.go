package handler

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestListOffsetsV0AnswersOffsetsBySegment: ListOffsets v0 answers up to
// max_num_offsets offsets, newest first: the log end for now and each
// segment's base offset for its file's modification time, as 0.8 did.
func TestListOffsetsV0AnswersOffsetsBySegment(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 5, 0)
	list := func(ts int64, maxOffsets int32, topic string) kmsg.ListOffsetsResponseTopicPartition {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = -1
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Timestamp, rp.MaxNumOffsets = ts, maxOffsets
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		return f.call(req, 0).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]
	}
	for _, c := range []struct {
		ts   int64
		max  int32
		want string
	}{
		{-1, 10, "[5 0]"}, {-1, 1, "[5]"}, {-2, 10, "[0]"},
		{time.Now().Add(time.Hour).UnixMilli(), 10, "[5 0]"}, {1, 10, "[]"},
	} {
		got := list(c.ts, c.max, "t")
		if got.ErrorCode != 0 || fmt.Sprint(got.OldStyleOffsets) != c.want {
			t.Errorf("timestamp %d max %d: error %d offsets %v, want %s", c.ts, c.max, got.ErrorCode, got.OldStyleOffsets, c.want)
		}
	}
	if got := list(-1, 10, "missing"); got.ErrorCode != kerr.UnknownTopicOrPartition.Code || len(got.OldStyleOffsets) != 0 {
		t.Errorf("unknown topic: error %d offsets %v", got.ErrorCode, got.OldStyleOffsets)
	}
}
