package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func offsetForLeaderEpoch(f *adminFixture, topic string, partition, current, epoch int32) kmsg.OffsetForLeaderEpochResponseTopicPartition {
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.ReplicaID = -1
	rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
	rt.Topic = topic
	rt.Partitions = []kmsg.OffsetForLeaderEpochRequestTopicPartition{{Partition: partition, CurrentLeaderEpoch: current, LeaderEpoch: epoch}}
	req.Topics = append(req.Topics, rt)
	resp := f.call(req, 4).(*kmsg.OffsetForLeaderEpochResponse)
	return resp.Topics[0].Partitions[0]
}

func TestOffsetForLeaderEpoch(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 5, 0) // epoch 0: offsets 0–4
	f.bumpLeaderEpoch("t", 0)
	f.bumpLeaderEpoch("t", 0)
	f.produce("t", 0, 3, 2) // epoch 2: offsets 5–7

	for _, c := range []struct {
		name           string
		current, epoch int32
		wantEpoch      int32
		wantEnd        int64
		wantErr        int16
	}{
		{"first epoch ends where the next starts", 2, 0, 0, 5, 0},
		{"an epoch never led is answered by the one before", 2, 1, 0, 5, 0},
		{"the latest epoch ends at the log end", 2, 2, 2, 8, 0},
		{"no fencing with -1", -1, 2, 2, 8, 0},
		{"an epoch above the latest is unknown", 2, 3, -1, -1, 0},
		{"undefined epoch", 2, -1, -1, -1, 0},
		{"older current epoch is fenced", 1, 0, -1, -1, kerr.FencedLeaderEpoch.Code},
		{"newer current epoch is unknown", 3, 0, -1, -1, kerr.UnknownLeaderEpoch.Code},
	} {
		got := offsetForLeaderEpoch(f, "t", 0, c.current, c.epoch)
		if got.ErrorCode != c.wantErr || got.LeaderEpoch != c.wantEpoch || got.EndOffset != c.wantEnd {
			t.Errorf("%s: got epoch %d end %d error %d, want %d %d %d", c.name, got.LeaderEpoch, got.EndOffset, got.ErrorCode, c.wantEpoch, c.wantEnd, c.wantErr)
		}
	}
	if got := offsetForLeaderEpoch(f, "nope", 0, -1, 0); got.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown topic: %+v", got)
	}
	if got := offsetForLeaderEpoch(f, "t", 4, -1, 0); got.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown partition: %+v", got)
	}
}

func TestOffsetForLeaderEpochBelowTheFirstKnownEpoch(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.bumpLeaderEpoch("t", 0)
	f.produce("t", 0, 4, 1)
	got := offsetForLeaderEpoch(f, "t", 0, 1, 0)
	if got.ErrorCode != 0 || got.LeaderEpoch != 0 || got.EndOffset != 0 {
		t.Fatalf("got %+v, want epoch 0 ending at 0 (the first known epoch's start)", got)
	}
}
