package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func describeTopicPartitions(f *adminFixture, topics []string, limit int32, cursor *kmsg.DescribeTopicPartitionsRequestCursor) *kmsg.DescribeTopicPartitionsResponse {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, name := range topics {
		rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
		rt.Topic = name
		req.Topics = append(req.Topics, rt)
	}
	req.ResponsePartitionLimit = limit
	req.Cursor = cursor
	return f.call(req, 0).(*kmsg.DescribeTopicPartitionsResponse)
}

// partitionsOf lists "topic-partition" for every answered partition.
func partitionsOf(resp *kmsg.DescribeTopicPartitionsResponse) []string {
	var out []string
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, *t.Topic+"-"+string(rune('0'+p.Partition)))
		}
	}
	return out
}

func TestDescribeTopicPartitionsPaginates(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("b", 3, nil)
	f.createTopic("a", 2, nil)
	f.createTopic("c", 1, nil)

	var got []string
	var cursor *kmsg.DescribeTopicPartitionsRequestCursor
	var cursors []kmsg.DescribeTopicPartitionsResponseNextCursor
	for range 10 {
		resp := describeTopicPartitions(f, nil, 2, cursor)
		got = append(got, partitionsOf(resp)...)
		if resp.NextCursor == nil {
			break
		}
		cursors = append(cursors, *resp.NextCursor)
		cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: resp.NextCursor.Topic, Partition: resp.NextCursor.Partition}
	}
	want := []string{"a-0", "a-1", "b-0", "b-1", "b-2", "c-0"}
	if len(got) != len(want) {
		t.Fatalf("pages gave %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pages gave %v, want %v", got, want)
		}
	}
	// After a: limit reached exactly, so the cursor points at b's start;
	// b is cut after 2; then b-2 and c-0 fit in the last page.
	wantCursors := []kmsg.DescribeTopicPartitionsResponseNextCursor{{Topic: "b", Partition: 0}, {Topic: "b", Partition: 2}}
	if len(cursors) != len(wantCursors) {
		t.Fatalf("cursors %+v", cursors)
	}
	for i := range cursors {
		if cursors[i].Topic != wantCursors[i].Topic || cursors[i].Partition != wantCursors[i].Partition {
			t.Fatalf("cursors %+v, want %+v", cursors, wantCursors)
		}
	}
}

func TestDescribeTopicPartitionsNamedTopics(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("events", 2, nil)
	resp := describeTopicPartitions(f, []string{"missing", "events", "bad/name", "events"}, 2000, nil)
	if len(resp.Topics) != 3 || resp.NextCursor != nil {
		t.Fatalf("topics %+v", resp.Topics)
	}
	// Sorted: "bad/name" < "events" < "missing".
	bad, events, missing := resp.Topics[0], resp.Topics[1], resp.Topics[2]
	if *bad.Topic != "bad/name" || bad.ErrorCode != kerr.InvalidTopicException.Code {
		t.Errorf("bad name: %+v", bad)
	}
	if *missing.Topic != "missing" || missing.ErrorCode != kerr.UnknownTopicOrPartition.Code || missing.TopicID != [16]byte{} {
		t.Errorf("missing: %+v", missing)
	}
	topic, _ := f.store.Image().Topic("events")
	if *events.Topic != "events" || events.ErrorCode != 0 || events.TopicID != topic.ID || len(events.Partitions) != 2 {
		t.Fatalf("events: %+v", events)
	}
	if events.AuthorizedOperations != topicAuthorizedOperations {
		t.Errorf("authorized operations %d", events.AuthorizedOperations)
	}
	p := events.Partitions[1]
	if p.Partition != 1 || p.LeaderID != 1 || p.LeaderEpoch != 0 || len(p.Replicas) != 1 || len(p.ISR) != 1 ||
		p.EligibleLeaderReplicas == nil || p.LastKnownELR == nil || p.OfflineReplicas == nil {
		t.Errorf("partition %+v", p)
	}
}

func TestDescribeTopicPartitionsCursorChecks(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("events", 3, nil)
	// The cursor's topic must be among the named ones.
	resp := describeTopicPartitions(f, []string{"events"}, 10, &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "other"})
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("cursor outside the list: %+v", resp.Topics)
	}
	resp = describeTopicPartitions(f, []string{"events"}, 10, &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "events", Partition: -1})
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("negative cursor partition: %+v", resp.Topics)
	}
	resp = describeTopicPartitions(f, []string{"events"}, 10, &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "events", Partition: 1})
	if got := partitionsOf(resp); len(got) != 2 || got[0] != "events-1" {
		t.Fatalf("resume at partition 1: %v", got)
	}
	// A limit of 0 or less still answers one partition.
	resp = describeTopicPartitions(f, nil, 0, nil)
	if got := partitionsOf(resp); len(got) != 1 || resp.NextCursor == nil || resp.NextCursor.Partition != 1 {
		t.Fatalf("limit 0: %v, cursor %+v", got, resp.NextCursor)
	}
}
