package handler

// OffsetForLeaderEpoch (key 23), versions 0–4.
//
//	v0: end offsets only.
//	v1: the leader epoch of each answer.
//	Kafka 4 dropped v0–v1 (KIP-896); Karst serves them.
//	v2: current leader epoch (fencing, KIP-320).
//	v3: replica id (-1 for consumers, -2 for debugging tools).
//	v4: flexible.
//
// Consumers use it to detect log truncation after a leader change: for the
// requested epoch the answer is the largest epoch at or below it that the
// log knows and the offset where that epoch ended (the log end offset for
// the latest epoch). As Kafka's LeaderEpochFileCache answers: -1 or an
// epoch above every known one is -1 / -1 with no error; an epoch below
// every known one (its data deleted) is that epoch and the start offset of
// the first known epoch. current_leader_epoch is checked as everywhere else:
// older is FENCED_LEADER_EPOCH, newer is UNKNOWN_LEADER_EPOCH.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
)

func init() { register(23, 0, 4, (*Broker).handleOffsetForLeaderEpoch) }

func (b *Broker) handleOffsetForLeaderEpoch(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.OffsetForLeaderEpochRequest)
	resp := kmsg.NewPtrOffsetForLeaderEpochResponse()
	img := b.image()
	for _, rt := range req.Topics {
		out := kmsg.NewOffsetForLeaderEpochResponseTopic()
		out.Topic = rt.Topic
		topic, topicOK := img.Topic(rt.Topic)
		for _, rp := range rt.Partitions {
			po := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			po.Partition = rp.Partition
			po.LeaderEpoch, po.EndOffset = -1, -1
			if !topicOK {
				po.ErrorCode = kerr.UnknownTopicOrPartition.Code
				out.Partitions = append(out.Partitions, po)
				continue
			}
			part, _, code := b.leaderPartition(topic, rp.Partition, rp.CurrentLeaderEpoch)
			if po.ErrorCode = code; code == 0 {
				po.LeaderEpoch, po.EndOffset = endOffsetForEpoch(part.Log, rp.LeaderEpoch)
			}
			out.Partitions = append(out.Partitions, po)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}

// endOffsetForEpoch is the log's answer with Kafka's two edge cases, which
// the log's floor lookup answers differently: an epoch above the latest,
// and one below the first.
func endOffsetForEpoch(l *klog.Log, requested int32) (int32, int64) {
	if requested < 0 {
		return -1, -1
	}
	if requested > l.LatestEpoch() {
		return -1, -1
	}
	epoch, end := l.EndOffsetForEpoch(requested)
	if epoch < 0 {
		if entries := l.EpochEntries(); len(entries) > 0 && entries[0].Epoch > requested {
			return requested, entries[0].StartOffset
		}
	}
	return epoch, end
}
