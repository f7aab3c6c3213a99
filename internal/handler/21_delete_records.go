package handler

// DeleteRecords (key 21), versions 0–2.
//
//	v0: per partition, the offset before which records are deleted.
//	v1: no change (throttling after the response).
//	v2: flexible.
//
// Offset -1 means the high watermark. The log start offset moves up to the
// offset (it never moves back) and segments wholly below it are deleted; an
// offset past the high watermark, or negative other than -1, is
// OFFSET_OUT_OF_RANGE. The answer's low watermark is the partition's new
// log start offset: with one replica there is nothing to wait for. As in
// Kafka, records of internal topics cannot be deleted
// (INVALID_TOPIC_EXCEPTION), nor those of a topic whose cleanup.policy
// lacks "delete" (POLICY_VIOLATION).

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(21, 0, 2, (*Broker).handleDeleteRecords) }

// deleteToHighWatermark is DeleteRecordsRequest.HIGH_WATERMARK.
const deleteToHighWatermark = -1

func (b *Broker) handleDeleteRecords(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DeleteRecordsRequest)
	resp := kmsg.NewPtrDeleteRecordsResponse()
	img := b.image()
	for _, rt := range req.Topics {
		out := kmsg.NewDeleteRecordsResponseTopic()
		out.Topic = rt.Topic
		topic, topicCode := requestTopic(img, false, rt.Topic, [16]byte{})
		for _, rp := range rt.Partitions {
			po := kmsg.NewDeleteRecordsResponseTopicPartition()
			po.Partition = rp.Partition
			po.LowWatermark = -1
			part, code := b.deleteRecordsLog(topic, topicCode, rp.Partition)
			switch {
			case code != 0:
				po.ErrorCode = code
			case !b.logConfig(img, rt.Topic).Delete:
				po.ErrorCode = kerr.PolicyViolation.Code
			default:
				offset := rp.Offset
				if offset == deleteToHighWatermark {
					offset = part.HighWatermark()
				}
				if offset < 0 {
					po.ErrorCode = kerr.OffsetOutOfRange.Code
					break
				}
				low, err := part.DeleteRecords(offset)
				if err != nil {
					po.ErrorCode = errorCode(err)
					break
				}
				po.LowWatermark = low
				b.logger.Info("deleted records", "topic", rt.Topic, "partition", rp.Partition, "log_start_offset", low)
			}
			out.Partitions = append(out.Partitions, po)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}

// deleteRecordsLog finds the log of a partition whose records may be
// deleted: it must exist (checked first, as Kafka does) and not belong to
// an internal topic.
func (b *Broker) deleteRecordsLog(topic *metadata.Topic, topicCode int16, partition int32) (*klog.Log, int16) {
	if topicCode != 0 {
		return nil, topicCode
	}
	if metadata.IsInternalTopic(topic.Name) {
		return nil, kerr.InvalidTopicException.Code
	}
	part, _, code := b.leaderPartition(topic, partition, -1)
	if code != 0 {
		return nil, code
	}
	return part.Log, 0
}
