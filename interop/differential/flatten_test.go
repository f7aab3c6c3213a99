package main

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFlattenNormalizesAndLabels: ids become placeholders numbered by first appearance in label
// order, whatever order the broker answered in (the same id twice gets the same placeholder);
// "none" values stay, array elements are labelled by their key fields, and error codes carry
// their names.
func TestFlattenNormalizesAndLabels(t *testing.T) {
	resp := kmsg.NewPtrMetadataResponse()
	resp.ClusterID = kmsg.StringPtr("abc")
	for i, name := range []string{"b", "a"} {
		topic := kmsg.NewMetadataResponseTopic()
		topic.Topic = kmsg.StringPtr(name)
		topic.TopicID = [16]byte{byte(i + 1)}
		topic.ErrorCode = int16(3 * i)
		resp.Topics = append(resp.Topics, topic)
	}
	broker := kmsg.NewMetadataResponseBroker()
	broker.NodeID, broker.Host, broker.Port = 1, "127.0.0.1", 45678
	resp.Brokers = append(resp.Brokers, broker)

	f := newFlattener()
	got := f.flatten(resp)
	want := map[string]string{
		"ClusterID":                 "<cluster-1>",
		"Topics[Topic=a].TopicID":   "<topic-id-1>",
		"Topics[Topic=b].TopicID":   "<topic-id-2>",
		"Topics[Topic=a].ErrorCode": "3 UNKNOWN_TOPIC_OR_PARTITION",
		"Topics[Topic=b].ErrorCode": "0",
		"Brokers[NodeID=1].Host":    "<host>",
		"Brokers[NodeID=1].Port":    "<port>",
		"Brokers[NodeID=1].Rack":    "null",
		"Topics.len":                "2",
	}
	for path, value := range want {
		if got[path] != value {
			t.Errorf("%s = %q, want %q", path, got[path], value)
		}
	}
	again := f.flatten(resp)
	if again["Topics[Topic=b].TopicID"] != "<topic-id-2>" {
		t.Errorf("the same id got a new placeholder: %q", again["Topics[Topic=b].TopicID"])
	}
}

func TestCompareStepsReportsOutcomesAndValues(t *testing.T) {
	a, b := kmsg.NewPtrHeartbeatResponse(), kmsg.NewPtrHeartbeatResponse()
	b.ErrorCode = 25
	diffs := compareSteps("Heartbeat v4 x", []step{{label: "1", resp: a}, {label: "2", err: errClosed}},
		[]step{{label: "1", resp: b}, {label: "2", resp: a}}, newFlattener(), newFlattener())
	if len(diffs) != 2 {
		t.Fatalf("diffs %+v, want the error code and the outcome", diffs)
	}
	if diffs[0].key != "Heartbeat v4 x/1 ErrorCode" || diffs[0].karst != "25 UNKNOWN_MEMBER_ID" {
		t.Errorf("first diff %+v", diffs[0])
	}
	if diffs[1].key != "Heartbeat v4 x/2 <outcome>" || diffs[1].kafka != "connection closed" {
		t.Errorf("second diff %+v", diffs[1])
	}
}
