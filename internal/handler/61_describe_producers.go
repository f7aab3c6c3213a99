package handler

// DescribeProducers (key 61), version 0 (KIP-664), flexible.
//
//	v0: per partition, the producers the partition log keeps state for:
//	    id, epoch, last sequence, last timestamp, coordinator epoch and
//	    the first offset of the open transaction (-1 if none).
//
// A topic or partition this node does not lead is
// UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers for a partition it has no
// log of. kafka-transactions describe-producers and find-hanging use it.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(61, 0, 0, (*Broker).handleDescribeProducers) }

func (b *Broker) handleDescribeProducers(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeProducersRequest)
	resp := kmsg.NewPtrDescribeProducersResponse()
	img := b.image()
	for _, rt := range req.Topics {
		out := kmsg.NewDescribeProducersResponseTopic()
		out.Topic = rt.Topic
		topic, topicOK := img.Topic(rt.Topic)
		for _, p := range rt.Partitions {
			po := kmsg.NewDescribeProducersResponseTopicPartition()
			po.Partition = p
			po.ActiveProducers = []kmsg.DescribeProducersResponseTopicPartitionActiveProducer{}
			if !topicOK {
				po.ErrorCode = kerr.UnknownTopicOrPartition.Code
				out.Partitions = append(out.Partitions, po)
				continue
			}
			part, _, code := b.leaderPartition(topic, p, -1)
			if po.ErrorCode = code; code == 0 {
				for _, pi := range part.Log.Producers() {
					ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
					ap.ProducerID, ap.ProducerEpoch = pi.ProducerID, int32(pi.ProducerEpoch)
					ap.LastSequence, ap.LastTimestamp = pi.LastSequence, pi.LastTimestamp
					ap.CoordinatorEpoch, ap.CurrentTxnStartOffset = pi.CoordinatorEpoch, pi.CurrentTxnStartOffset
					po.ActiveProducers = append(po.ActiveProducers, ap)
				}
			}
			out.Partitions = append(out.Partitions, po)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}
