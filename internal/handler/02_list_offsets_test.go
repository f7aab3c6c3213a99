package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestListOffsetsV11EarliestPendingUpload: without remote storage nothing
// waits for upload, and Kafka's UnifiedLog answers -1 (offset, timestamp
// and leader epoch) with no error.
func TestListOffsetsV11EarliestPendingUpload(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 3, 0)
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Timestamp = earliestPendingUploadTimestamp
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	p := f.call(req, 11).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]
	if p.ErrorCode != 0 || p.Offset != -1 || p.Timestamp != -1 || p.LeaderEpoch != -1 {
		t.Fatalf("answered error %d offset %d timestamp %d epoch %d, want no error and -1 for each", p.ErrorCode, p.Offset, p.Timestamp, p.LeaderEpoch)
	}
}
