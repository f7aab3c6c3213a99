package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFetchUnresolvedPartitionAnswersEmptyAbortedTransactions: a partition Kafka cannot resolve
// (unknown topic, partition out of range) is answered with an empty aborted-transactions array,
// not a null one (Kafka 4.4's FetchResponse.partitionResponse); a readable partition read
// uncommitted keeps null, as in Kafka.
func TestFetchUnresolvedPartitionAnswersEmptyAbortedTransactions(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := fetchRequest("t", 0, 0, 0, 0)
	bad := kmsg.NewFetchRequestTopicPartition()
	bad.Partition, bad.PartitionMaxBytes, bad.CurrentLeaderEpoch = 99, 1<<20, -1
	req.Topics[0].Partitions = append(req.Topics[0].Partitions, bad)
	unknown := kmsg.NewFetchRequestTopic()
	unknown.Topic, unknown.Partitions = "missing", []kmsg.FetchRequestTopicPartition{bad}
	req.Topics = append(req.Topics, unknown)
	for _, v := range []int16{4, 12} {
		resp := f.fetchOn(ctx, req, v)
		for _, topic := range resp.Topics {
			for _, p := range topic.Partitions {
				readable := topic.Topic == "t" && p.Partition == 0
				if readable && p.AbortedTransactions != nil {
					t.Errorf("v%d %s-%d: aborted transactions %v, want null", v, topic.Topic, p.Partition, p.AbortedTransactions)
				}
				if !readable && (p.ErrorCode == 0 || p.AbortedTransactions == nil) {
					t.Errorf("v%d %s-%d: error %d, aborted transactions null=%v; want an error and an empty array",
						v, topic.Topic, p.Partition, p.ErrorCode, p.AbortedTransactions == nil)
				}
			}
		}
	}
}
