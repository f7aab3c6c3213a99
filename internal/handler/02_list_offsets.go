package handler

// ListOffsets (key 2), versions 0–11.
//
//	v0: up to max_num_offsets offsets per partition, by segment, as Kafka
//	0.8 to 3.x answered (klog.Log.OffsetsBefore). Kafka 4 dropped it
//	(KIP-896); Karst serves it, as Metricbeat and 0.8 clients ask for it.
//	v1: one offset per partition (no max_num_offsets).
//	v2: isolation level.
//	v4: current leader epoch (fencing) and the leader epoch of the answer.
//	v6: flexible.
//	v7: MAX_TIMESTAMP (-3).
//	v8: EARLIEST_LOCAL_TIMESTAMP (-4).
//	v9: LATEST_TIERED_TIMESTAMP (-5).
//	v10: timeout (for remote storage).
//	v11: EARLIEST_PENDING_UPLOAD_TIMESTAMP (-6, KIP-1023).
//
// Special timestamps: -1 latest (the high watermark, or the last stable
// offset for read_committed), -2 earliest (the log start offset), -3 the
// record with the largest timestamp, -4 earliest local (the log start
// offset: all data is local), -5 latest tiered and -6 earliest pending
// upload (both -1, as Kafka answers for a topic without remote storage). A
// timestamp >= 0 finds the first record whose timestamp is at least it,
// through the time index. As in Kafka, a found offset at or past what the
// isolation level may fetch (high watermark, or LSO for read_committed)
// is not answered (-1).

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/storage"
)

func init() { register(2, 0, 11, (*Broker).handleListOffsets) }

// The special timestamps of ListOffsets.
const (
	latestTimestamp        = -1
	earliestTimestamp      = -2
	maxTimestamp           = -3
	earliestLocalTimestamp = -4
	latestTieredTimestamp  = -5
	// earliestPendingUploadTimestamp: the first offset not yet copied to
	// remote storage; with none, Kafka answers -1.
	earliestPendingUploadTimestamp = -6
)

func (b *Broker) handleListOffsets(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ListOffsetsRequest)
	resp := kmsg.NewPtrListOffsetsResponse()
	img := b.image()
	for _, rt := range req.Topics {
		out := kmsg.NewListOffsetsResponseTopic()
		out.Topic = rt.Topic
		topic, topicCode := requestTopic(img, false, rt.Topic, [16]byte{})
		for _, rp := range rt.Partitions {
			po := kmsg.NewListOffsetsResponseTopicPartition()
			po.Partition = rp.Partition
			po.Timestamp, po.Offset, po.LeaderEpoch = -1, -1, -1
			if topicCode != 0 {
				po.ErrorCode = topicCode
				out.Partitions = append(out.Partitions, po)
				continue
			}
			part, meta, code := b.leaderPartition(topic, rp.Partition, rp.CurrentLeaderEpoch)
			if po.ErrorCode = code; code == 0 && r.Version() == 0 {
				po.OldStyleOffsets = part.Log.OffsetsBefore(rp.Timestamp, rp.MaxNumOffsets, req.ReplicaID == -1)
			} else if code == 0 {
				b.listOffset(part, rp.Timestamp, req.IsolationLevel, &po)
				if po.ErrorCode == 0 && po.Offset >= 0 {
					po.LeaderEpoch = answerEpoch(part, rp.Timestamp, po.Offset, meta.LeaderEpoch)
				}
			}
			out.Partitions = append(out.Partitions, po)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}

// answerEpoch is the leader epoch Kafka reports beside an answer: for
// "latest", the current leader epoch (Kafka records it in the log's epoch
// cache when it becomes leader); otherwise the epoch under which the
// answered offset was written (the current one if the log knows none).
func answerEpoch(part *storage.Partition, ts, offset int64, current int32) int32 {
	if ts == latestTimestamp {
		return current
	}
	if epoch := part.Log.EpochForOffset(offset); epoch >= 0 {
		return epoch
	}
	return current
}

func (b *Broker) listOffset(part *storage.Partition, ts int64, isolation int8, po *kmsg.ListOffsetsResponseTopicPartition) {
	l := part.Log
	// As Kafka's fetchOffsetForTimestamp: what a consumer of this isolation
	// level may fetch ends here, and a timestamp lookup that lands at or
	// past it finds nothing.
	lastFetchable := l.HighWatermark()
	if isolation == 1 {
		lastFetchable = l.LastStableOffset()
	}
	defer func() {
		if ts != latestTimestamp && ts != earliestTimestamp && ts != earliestLocalTimestamp && po.Offset >= lastFetchable {
			po.Timestamp, po.Offset = -1, -1
		}
	}()
	switch ts {
	case latestTimestamp:
		po.Offset = lastFetchable
	case earliestTimestamp, earliestLocalTimestamp:
		po.Offset = l.LogStartOffset()
	case latestTieredTimestamp, earliestPendingUploadTimestamp:
		po.Offset = -1
	case maxTimestamp:
		res, found, err := l.MaxTimestamp()
		if err != nil {
			po.ErrorCode = errorCode(err)
			return
		}
		if found {
			po.Timestamp, po.Offset = res.Timestamp, res.Offset
		}
	default:
		if ts < 0 {
			po.ErrorCode = kerr.UnknownServerError.Code
			return
		}
		res, found, err := l.OffsetForTimestamp(ts)
		if err != nil {
			po.ErrorCode = errorCode(err)
			return
		}
		if found {
			po.Timestamp, po.Offset = res.Timestamp, res.Offset
		}
	}
}
