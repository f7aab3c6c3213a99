package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestOffsetCommitAndFetchV10ByTopicID: v10 names topics by id both
// ways; an unknown id is UNKNOWN_TOPIC_ID, as Kafka's KafkaApis answers.
func TestOffsetCommitAndFetchV10ByTopicID(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 2, nil)
	tp, _ := f.store.Image().Topic("t")
	unknownID := [16]byte{0xde, 0xad}

	commit := offsetCommitReq("g", "", -1, "", 10, 20)
	commit.Topics[0].TopicID = tp.ID
	other := kmsg.NewOffsetCommitRequestTopic()
	other.TopicID = unknownID
	other.Partitions = []kmsg.OffsetCommitRequestTopicPartition{commit.Topics[0].Partitions[0]}
	commit.Topics = append(commit.Topics, other)
	resp := f.do(commit, 10).(*kmsg.OffsetCommitResponse)
	checkCommitByID(t, "commit v10", commitCodes(resp), [2][16]byte{resp.Topics[0].TopicID, resp.Topics[1].TopicID}, tp.ID, unknownID)

	fetch := kmsg.NewPtrOffsetFetchRequest()
	rg := kmsg.NewOffsetFetchRequestGroup()
	rg.Group = "g"
	known := kmsg.NewOffsetFetchRequestGroupTopic()
	known.TopicID, known.Partitions = tp.ID, []int32{0, 1}
	missing := kmsg.NewOffsetFetchRequestGroupTopic()
	missing.TopicID, missing.Partitions = unknownID, []int32{0}
	rg.Topics = []kmsg.OffsetFetchRequestGroupTopic{missing, known}
	all := kmsg.NewOffsetFetchRequestGroup()
	all.Group = "g"
	fetch.Groups = []kmsg.OffsetFetchRequestGroup{rg, all}
	got := f.do(fetch, 10).(*kmsg.OffsetFetchResponse)
	if len(got.Groups) != 2 || len(got.Groups[0].Topics) != 2 || len(got.Groups[1].Topics) != 1 {
		t.Fatalf("fetch v10: %+v", got)
	}
	for i, g := range got.Groups {
		topic := g.Topics[0]
		if topic.TopicID != tp.ID || len(topic.Partitions) != 2 || topic.Partitions[0].Offset != 10 || topic.Partitions[1].Offset != 20 {
			t.Errorf("fetch v10 group %d: first topic %x %+v, want t's id with offsets 10 and 20", i, topic.TopicID, topic.Partitions)
		}
	}
	m := got.Groups[0].Topics[1]
	if m.TopicID != unknownID || len(m.Partitions) != 1 || m.Partitions[0].ErrorCode != kerr.UnknownTopicID.Code || m.Partitions[0].Offset != -1 {
		t.Errorf("fetch v10 unknown id: %x %+v, want UNKNOWN_TOPIC_ID and offset -1, after the known topics", m.TopicID, m.Partitions)
	}
}

// checkCommitByID checks the answer to a commit of two partitions of a
// known topic id and one of an unknown id: codes per partition and the
// topic ids answered.
func checkCommitByID(t *testing.T, what string, codes []int16, ids [2][16]byte, known, unknown [16]byte) {
	t.Helper()
	if len(codes) != 3 || codes[0] != 0 || codes[1] != 0 || codes[2] != kerr.UnknownTopicID.Code {
		t.Fatalf("%s codes %v, want 0 0 UNKNOWN_TOPIC_ID", what, codes)
	}
	if ids[0] != known || ids[1] != unknown {
		t.Fatalf("%s answered topic ids %x %x", what, ids[0], ids[1])
	}
}

// TestOffsetFetchV10AllLeavesOutDeletedTopics: asked for every committed
// offset, v10 answers topic ids, so a topic that no longer exists (whose
// offsets remain until cleaned up) is left out, as Kafka does; v9 still
// names it.
func TestOffsetFetchV10AllLeavesOutDeletedTopics(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 1, nil)
	f.createTopic("gone", 1, nil)
	for _, topic := range []string{"t", "gone"} {
		if c := commitCodes(f.do(offsetCommitReq("g", "", -1, topic, 5), 9).(*kmsg.OffsetCommitResponse)); c[0] != 0 {
			t.Fatalf("commit to %s: %v", topic, c)
		}
	}
	if _, err := f.store.DeleteTopic("gone"); err != nil {
		t.Fatal(err)
	}
	tp, _ := f.store.Image().Topic("t")
	all := kmsg.NewOffsetFetchRequestGroup()
	all.Group = "g"
	for _, c := range []struct {
		v    int16
		want int
	}{{9, 2}, {10, 1}} {
		req := kmsg.NewPtrOffsetFetchRequest()
		req.Groups = []kmsg.OffsetFetchRequestGroup{all}
		topics := f.do(req, c.v).(*kmsg.OffsetFetchResponse).Groups[0].Topics
		if len(topics) != c.want {
			t.Fatalf("v%d: %d topics %+v, want %d", c.v, len(topics), topics, c.want)
		}
		if c.v == 10 && (topics[0].TopicID != tp.ID || topics[0].Partitions[0].Offset != 5) {
			t.Fatalf("v10: %+v, want t's id and offset 5", topics[0])
		}
	}
}
