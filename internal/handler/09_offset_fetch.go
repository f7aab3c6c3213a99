package handler

// OffsetFetch (key 9), versions 0–10.
//
//	v0: as v1 (Kafka before 4 read v0's from ZooKeeper; Karst has one
//	    store for every version). Kafka 4 dropped it (KIP-896).
//	v2: null topics fetch every committed offset; a top-level error.
//	v3: throttle time.
//	v5: leader epoch per partition.
//	v6: flexible.
//	v7: require_stable (KIP-447): wait out pending transactional commits.
//	v8: many groups per request (KIP-709).
//	v9: member id and epoch (KIP-848; not checked for classic groups).
//	v10: topics named by topic id (KIP-848). As Kafka's KafkaApis, an id
//	    the metadata does not know answers UNKNOWN_TOPIC_ID per partition
//	    (after the coordinator's topics), and "every committed offset"
//	    leaves out topics that no longer exist.
//
// Partitions without a commit answer offset -1 and no error. Offsets
// committed inside a transaction (TxnOffsetCommit) are invisible until it
// commits; with require_stable, a partition with such an offset answers
// UNSTABLE_OFFSET_COMMIT (per partition, in every version, as Kafka 4's
// coordinator does) and the client asks again.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(9, 0, 10, (*Broker).handleOffsetFetch) }

func (b *Broker) handleOffsetFetch(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.OffsetFetchRequest)
	v := r.Version()
	resp := kmsg.NewPtrOffsetFetchResponse()
	stable := v >= 7 && req.RequireStable
	if v >= 8 {
		img := b.image()
		byID := v >= 10
		for _, rg := range req.Groups {
			var topics []group.TopicPartition
			var unknownIDs []kmsg.OffsetFetchResponseGroupTopic
			if rg.Topics != nil {
				topics = []group.TopicPartition{}
				for _, t := range rg.Topics {
					name := t.Topic
					if byID {
						topic, ok := img.TopicByID(metadata.UUID(t.TopicID))
						if !ok {
							unknownIDs = append(unknownIDs, unknownTopicIDFetched(t))
							continue
						}
						name = topic.Name
					}
					for _, p := range t.Partitions {
						topics = append(topics, group.TopicPartition{Topic: name, Partition: p})
					}
				}
			}
			errCode, fetched := b.fetchOffsets(rg.Group, topics, stable)
			g := kmsg.NewOffsetFetchResponseGroup()
			g.Group, g.ErrorCode = rg.Group, errCode
			for _, t := range groupFetchedByTopic(fetched) {
				gt := kmsg.NewOffsetFetchResponseGroupTopic()
				gt.Topic = t[0].Topic
				if byID {
					topic, ok := img.Topic(gt.Topic)
					if !ok {
						continue
					}
					gt.TopicID = topic.ID
				}
				for _, f := range t {
					gp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
					gp.Partition, gp.Offset, gp.LeaderEpoch, gp.Metadata = f.Partition, f.Offset, f.LeaderEpoch, &f.Metadata
					gp.ErrorCode = code(f.Err)
					gt.Partitions = append(gt.Partitions, gp)
				}
				g.Topics = append(g.Topics, gt)
			}
			if errCode == 0 {
				g.Topics = append(g.Topics, unknownIDs...)
			}
			resp.Groups = append(resp.Groups, g)
		}
		return Ready(resp)
	}
	var topics []group.TopicPartition
	if req.Topics != nil || v < 2 {
		topics = []group.TopicPartition{}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				topics = append(topics, group.TopicPartition{Topic: t.Topic, Partition: p})
			}
		}
	}
	errCode, fetched := b.fetchOffsets(req.Group, topics, stable)
	if v >= 2 {
		resp.ErrorCode = errCode
	}
	for _, t := range groupFetchedByTopic(fetched) {
		rt := kmsg.NewOffsetFetchResponseTopic()
		rt.Topic = t[0].Topic
		for _, f := range t {
			rp := kmsg.NewOffsetFetchResponseTopicPartition()
			rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata = f.Partition, f.Offset, f.LeaderEpoch, &f.Metadata
			rp.ErrorCode = code(f.Err)
			if v < 2 {
				rp.ErrorCode = errCode
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return Ready(resp)
}

// fetchOffsets asks the coordinator; partitions nil means all. stable is
// require_stable.
func (b *Broker) fetchOffsets(groupID string, partitions []group.TopicPartition, stable bool) (int16, []group.FetchedOffset) {
	gc := b.groups()
	if gc == nil {
		return kerr.CoordinatorNotAvailable.Code, unknownFetched(partitions)
	}
	fetch := gc.FetchOffsets
	if stable {
		fetch = gc.FetchStableOffsets
	}
	err, fetched := fetch(groupID, partitions)
	if err != nil {
		return err.Code, unknownFetched(partitions)
	}
	return 0, fetched
}

// unknownTopicIDFetched is Kafka's answer for a topic id it does not know:
// each partition asked for, with no offset and UNKNOWN_TOPIC_ID.
func unknownTopicIDFetched(t kmsg.OffsetFetchRequestGroupTopic) kmsg.OffsetFetchResponseGroupTopic {
	gt := kmsg.NewOffsetFetchResponseGroupTopic()
	gt.TopicID = t.TopicID
	for _, p := range t.Partitions {
		gp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
		gp.Partition, gp.Offset, gp.Metadata = p, -1, new(string)
		gp.ErrorCode = kerr.UnknownTopicID.Code
		gt.Partitions = append(gt.Partitions, gp)
	}
	return gt
}

func unknownFetched(partitions []group.TopicPartition) []group.FetchedOffset {
	out := make([]group.FetchedOffset, len(partitions))
	for i, tp := range partitions {
		out[i] = group.FetchedOffset{TopicPartition: tp, CommittedOffset: group.CommittedOffset{Offset: -1, LeaderEpoch: -1}}
	}
	return out
}

// groupFetchedByTopic groups consecutive offsets of the same topic, in
// the order given (the request's, or by topic for "all").
func groupFetchedByTopic(fetched []group.FetchedOffset) [][]*group.FetchedOffset {
	var out [][]*group.FetchedOffset
	index := map[string]int{}
	for i := range fetched {
		f := &fetched[i]
		j, ok := index[f.Topic]
		if !ok {
			j = len(out)
			index[f.Topic] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], f)
	}
	return out
}
