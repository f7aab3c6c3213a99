package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMetadataAutoCreateAnswersUnknownTopic: a Metadata request that auto-creates a topic
// creates it but answers UNKNOWN_TOPIC_OR_PARTITION with no partitions and a zero topic id, as
// Apache Kafka 4.4 (KRaft) does, since there the topic exists only once the controller has
// committed it; clients retry until it shows. The next request sees the topic.
func TestMetadataAutoCreateAnswersUnknownTopic(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.b.opts.AutoCreateTopics = true
	ask := func(v int16) kmsg.MetadataResponseTopic {
		req := kmsg.NewPtrMetadataRequest()
		req.AllowAutoTopicCreation = true
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr("auto")
		req.Topics = append(req.Topics, rt)
		resp := f.call(req, v).(*kmsg.MetadataResponse)
		if len(resp.Topics) != 1 {
			t.Fatalf("v%d: %d topics", v, len(resp.Topics))
		}
		return resp.Topics[0]
	}
	first := ask(12)
	if first.ErrorCode != kerr.UnknownTopicOrPartition.Code || len(first.Partitions) != 0 || first.TopicID != [16]byte{} {
		t.Fatalf("auto-creating answer: error %d, %d partitions, id %x; want UNKNOWN_TOPIC_OR_PARTITION, none, zero",
			first.ErrorCode, len(first.Partitions), first.TopicID)
	}
	if _, ok := f.store.Image().Topic("auto"); !ok {
		t.Fatal("the topic was not created")
	}
	if next := ask(12); next.ErrorCode != 0 || len(next.Partitions) != 1 {
		t.Fatalf("after creation: error %d, %d partitions; want the topic", next.ErrorCode, len(next.Partitions))
	}
}
