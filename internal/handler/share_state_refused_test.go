package handler

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka answers a ReadShareGroupStateSummary refused for CLUSTER_ACTION with the schema's
// DeliveryCompleteCount of -1 (seen in the ACL differential), not with 0.
func TestShareStateRefusalKeepsSchemaDefaults(t *testing.T) {
	req := kmsg.NewPtrReadShareGroupStateSummaryRequest()
	req.SetVersion(1)
	req.GroupID = "g"
	topic := kmsg.NewReadShareGroupStateSummaryRequestTopic()
	topic.TopicID = [16]byte{1}
	topic.Partitions = append(topic.Partitions, kmsg.NewReadShareGroupStateSummaryRequestTopicPartition())
	req.Topics = append(req.Topics, topic)
	refused := kerr.ClusterAuthorizationFailed.Code
	resp := shareStateAnswer(req, func(reflect.Value, reflect.Value, reflect.Value) int16 { return refused }).(*kmsg.ReadShareGroupStateSummaryResponse)
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("answer %+v, want one topic with one partition", resp)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != refused || p.DeliveryCompleteCount != -1 {
		t.Errorf("refused partition: error %d, DeliveryCompleteCount %d; want %d and -1", p.ErrorCode, p.DeliveryCompleteCount, refused)
	}
}
