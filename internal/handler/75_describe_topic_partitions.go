package handler

// DescribeTopicPartitions (key 75), version 0 (KIP-966; kafka-topics
// --describe and Admin.describeTopics use it in Kafka 4.x).
//
//	v0: topics by name (none means all), response_partition_limit, and a
//	    cursor (topic, partition) to resume a paginated answer.
//
// As in Kafka: the requested names are deduplicated, those ordering before
// the cursor's topic are dropped, and the rest are answered in name order,
// starting the cursor's topic at the cursor's partition. At most
// min(response_partition_limit, max.request.partition.size.limit = 2000)
// partitions (at least 1) are returned; next_cursor names where to resume.
// A named topic that does not exist is answered with
// UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for an illegal name);
// when listing all topics it cannot occur. A cursor whose topic is not in a
// non-empty request list, or whose partition is negative, is
// INVALID_REQUEST for every requested topic.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(75, 0, 0, (*Broker).handleDescribeTopicPartitions) }

// maxRequestPartitionSizeLimit is Kafka's max.request.partition.size.limit.
const maxRequestPartitionSizeLimit = 2000

func (b *Broker) handleDescribeTopicPartitions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeTopicPartitionsRequest)
	resp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	img := b.image()
	names, ok := describeTopicPartitionsNames(img, req)
	if !ok {
		for _, rt := range req.Topics {
			out := kmsg.NewDescribeTopicPartitionsResponseTopic()
			name := rt.Topic
			out.Topic = &name
			out.ErrorCode = kerr.InvalidRequest.Code
			out.AuthorizedOperations = authorizedOperationsNotRequested
			resp.Topics = append(resp.Topics, out)
		}
		return Ready(resp)
	}
	listAll := len(req.Topics) == 0
	remaining := max(min(req.ResponsePartitionLimit, maxRequestPartitionSizeLimit), 1)
	for _, name := range names {
		if remaining == 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: 0}
			break
		}
		t, exists := img.Topic(name)
		if !exists {
			if !listAll {
				resp.Topics = append(resp.Topics, missingDescribedTopic(name))
			}
			continue
		}
		start := int32(0)
		if req.Cursor != nil && req.Cursor.Topic == name {
			start = req.Cursor.Partition
		}
		out, next := b.describeTopicPartitionsTopic(t, start, remaining)
		resp.Topics = append(resp.Topics, out)
		if next >= 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: next}
			break
		}
		remaining -= int32(len(out.Partitions))
	}
	return Ready(resp)
}

// describeTopicPartitionsNames returns the topics to answer, sorted and
// from the cursor's topic on, or false when the cursor is invalid.
func describeTopicPartitionsNames(img *metadata.Image, req *kmsg.DescribeTopicPartitionsRequest) ([]string, bool) {
	from := ""
	if req.Cursor != nil {
		from = req.Cursor.Topic
		if req.Cursor.Partition < 0 {
			return nil, false
		}
	}
	var names []string
	if len(req.Topics) == 0 {
		for _, t := range img.Topics() {
			if t.Name >= from {
				names = append(names, t.Name)
			}
		}
		return names, true
	}
	for _, rt := range req.Topics {
		if rt.Topic >= from {
			names = append(names, rt.Topic)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if req.Cursor != nil {
		if _, found := slices.BinarySearch(names, req.Cursor.Topic); !found {
			return nil, false
		}
	}
	return names, true
}

func missingDescribedTopic(name string) kmsg.DescribeTopicPartitionsResponseTopic {
	out := kmsg.NewDescribeTopicPartitionsResponseTopic()
	out.Topic = &name
	out.ErrorCode = kerr.UnknownTopicOrPartition.Code
	if metadata.ValidateTopicName(name) != "" {
		out.ErrorCode = kerr.InvalidTopicException.Code
	}
	out.IsInternal = metadata.IsInternalTopic(name)
	out.AuthorizedOperations = topicAuthorizedOperations
	return out
}

// describeTopicPartitionsTopic answers up to limit partitions of t from
// start on, and the partition to resume at (-1 when none remain).
func (b *Broker) describeTopicPartitionsTopic(t *metadata.Topic, start, limit int32) (kmsg.DescribeTopicPartitionsResponseTopic, int32) {
	out := kmsg.NewDescribeTopicPartitionsResponseTopic()
	name := t.Name
	out.Topic = &name
	out.TopicID = t.ID
	out.IsInternal = metadata.IsInternalTopic(t.Name)
	out.AuthorizedOperations = topicAuthorizedOperations
	out.Partitions = []kmsg.DescribeTopicPartitionsResponseTopicPartition{}
	count := int32(len(t.Partitions))
	upper := count
	if start < count && limit < count-start {
		upper = start + limit
	}
	next := int32(-1)
	if upper < count {
		next = upper
	}
	for id := start; id < upper; id++ {
		p, ok := t.Partition(id)
		if !ok {
			continue
		}
		po := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
		po.Partition = p.ID
		po.LeaderID = p.Leader
		po.LeaderEpoch = p.LeaderEpoch
		po.Replicas = nonNil(p.Replicas)
		po.ISR = nonNil(p.ISR)
		po.EligibleLeaderReplicas = nonNil(p.EligibleLeaderReplicas)
		po.LastKnownELR = nonNil(p.LastKnownELR)
		po.OfflineReplicas = []int32{}
		out.Partitions = append(out.Partitions, po)
	}
	return out, next
}
