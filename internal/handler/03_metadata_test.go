package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMetadataBeforeV12RefusesTopicIDs: v10 and v11 carry a topic id field
// but Kafka refuses a topic named by id (or with no name) before v12, with
// INVALID_REQUEST for each topic and no brokers; v12 resolves the id.
func TestMetadataBeforeV12RefusesTopicIDs(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	topic, _ := f.store.Image().Topic("t")
	byID := func(v int16, name *string) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic, rt.TopicID = name, topic.ID
		req.Topics = append(req.Topics, rt)
		return f.call(req, v).(*kmsg.MetadataResponse)
	}
	name := "t"
	for _, v := range []int16{10, 11} {
		for _, n := range []*string{nil, &name} {
			resp := byID(v, n)
			if len(resp.Brokers) != 0 || len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.InvalidRequest.Code || resp.Topics[0].Topic == nil {
				t.Fatalf("v%d (name %v): %d brokers, topics %+v; want INVALID_REQUEST and no brokers", v, n != nil, len(resp.Brokers), resp.Topics)
			}
		}
	}
	if resp := byID(12, nil); resp.Topics[0].ErrorCode != 0 || resp.Topics[0].Topic == nil || *resp.Topics[0].Topic != "t" {
		t.Fatalf("v12 by id: %+v", resp.Topics)
	}
}

// TestMetadataAuthorizedOperations: v8+ requests that ask for authorized
// operations get them (without an authorizer, every operation the resource
// supports: 8 for a topic, 7 for the cluster), as librdkafka's
// DescribeTopics and DescribeCluster read them; others get INT32_MIN.
func TestMetadataAuthorizedOperations(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	ask := func(v int16, topic, cluster bool) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		name := "t"
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = &name
		req.Topics = append(req.Topics, rt)
		req.IncludeTopicAuthorizedOperations, req.IncludeClusterAuthorizedOperations = topic, cluster
		return f.call(req, v).(*kmsg.MetadataResponse)
	}
	ops := func(bits int32) int {
		n := 0
		for ; bits != 0; bits &= bits - 1 {
			n++
		}
		return n
	}
	if r := ask(10, true, true); ops(r.Topics[0].AuthorizedOperations) != 8 || ops(r.AuthorizedOperations) != 7 {
		t.Fatalf("v10 asked: topic %b, cluster %b", r.Topics[0].AuthorizedOperations, r.AuthorizedOperations)
	}
	if r := ask(12, true, false); ops(r.Topics[0].AuthorizedOperations) != 8 || r.AuthorizedOperations != authorizedOperationsNotRequested {
		t.Fatalf("v12 asked for topics: topic %b, cluster %d", r.Topics[0].AuthorizedOperations, r.AuthorizedOperations)
	}
	if r := ask(12, false, false); r.Topics[0].AuthorizedOperations != authorizedOperationsNotRequested {
		t.Fatalf("v12 not asked: topic %d", r.Topics[0].AuthorizedOperations)
	}
}
