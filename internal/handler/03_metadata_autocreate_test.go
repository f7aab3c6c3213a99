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
	ask := func(v int16) kmsg.MetadataResponseTopic { return askAutoCreating(t, f, "auto", v) }
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

// TestMetadataAutoCreateThatFailsAnswersUnknownTopic: after this node has
// unregistered itself no replica can be placed, so creation fails; Kafka
// 4.4.0 (measured on one combined node after UnregisterBroker of itself)
// still answers UNKNOWN_TOPIC_OR_PARTITION at v1, v4, v9 and v12, because
// it creates topics asynchronously and only logs the controller's
// INVALID_REPLICATION_FACTOR. Until 2026-12-02 Karst answered 38.
func TestMetadataAutoCreateThatFailsAnswersUnknownTopic(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.b.opts.AutoCreateTopics = true
	unregister := kmsg.NewPtrUnregisterBrokerRequest()
	unregister.BrokerID = 1
	if resp := f.call(unregister, 0).(*kmsg.UnregisterBrokerResponse); resp.ErrorCode != 0 {
		t.Fatalf("unregister: %+v", resp)
	}
	for _, v := range []int16{1, 4, 9, 12} {
		if got := askAutoCreating(t, f, "not-placed", v); got.ErrorCode != kerr.UnknownTopicOrPartition.Code || len(got.Partitions) != 0 {
			t.Fatalf("v%d: %+v, want UNKNOWN_TOPIC_OR_PARTITION and no partitions", v, got)
		}
	}
	if _, ok := f.store.Image().Topic("not-placed"); ok {
		t.Fatal("the topic was created on an unregistered node")
	}
}

// askAutoCreating sends Metadata v for topic, allowing auto-creation, and
// returns its one topic.
func askAutoCreating(t *testing.T, f *adminFixture, topic string, v int16) kmsg.MetadataResponseTopic {
	t.Helper()
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = true
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp := f.call(req, v).(*kmsg.MetadataResponse)
	if len(resp.Topics) != 1 {
		t.Fatalf("v%d: %d topics", v, len(resp.Topics))
	}
	return resp.Topics[0]
}
