package handler

// The gates of the data and metadata APIs: Produce, Fetch, ListOffsets,
// OffsetForLeaderEpoch, Metadata, DescribeTopicPartitions and
// DescribeProducers, by Kafka's KafkaApis.

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

// hasTransactionalRecords reports whether a produce carries a
// transactional batch (RequestUtils.hasTransactionalRecords: the first
// batch of each partition, magic 2, attributes bit 4).
func hasTransactionalRecords(req *kmsg.ProduceRequest) bool {
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if b := p.Records; len(b) >= 23 && b[16] == 2 && binary.BigEndian.Uint16(b[21:23])&0x10 != 0 {
				return true
			}
		}
	}
	return false
}

// produceRefusal answers every partition of a produce with code.
func produceRefusal(topics []kmsg.ProduceRequestTopic, code int16) []kmsg.ProduceResponseTopic {
	var out []kmsg.ProduceResponseTopic
	for _, t := range topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = -1, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		out = append(out, rt)
	}
	return out
}

// gateProduce: a transactional produce needs WRITE on its transactional id
// (else the whole request is TRANSACTIONAL_ID_AUTHORIZATION_FAILED); each
// topic needs WRITE, refused per partition TOPIC_AUTHORIZATION_FAILED.
func gateProduce(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.ProduceRequest)
	if hasTransactionalRecords(req) && (req.TransactionID == nil || !g.txn(metadata.OpWrite, *req.TransactionID)) {
		if req.Acks == 0 {
			return verdict{closeNow: true}
		}
		resp := kmsg.NewPtrProduceResponse()
		resp.Topics = produceRefusal(req.Topics, kerr.TransactionalIDAuthorizationFailed.Code)
		return refuse(resp)
	}
	kept, refused := split(req.Topics, func(t kmsg.ProduceRequestTopic) bool {
		name, known := g.topicName(t.Topic, t.TopicID)
		return !known || g.topic(metadata.OpWrite, name)
	})
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{closeSilently: req.Acks == 0, complete: func(r kmsg.Response) {
		resp := r.(*kmsg.ProduceResponse)
		resp.Topics = append(resp.Topics, produceRefusal(refused, kerr.TopicAuthorizationFailed.Code)...)
	}}
}

// fromFollower reports whether a fetch is a replica's.
func fromFollower(req *kmsg.FetchRequest) bool {
	if req.Version >= 15 {
		return req.ReplicaState.ID >= 0
	}
	return req.ReplicaID >= 0
}

// gateFetch: a follower needs CLUSTER_ACTION, a consumer READ on each
// topic; a refused partition is answered TOPIC_AUTHORIZATION_FAILED
// without records. The handler resolves the partitions (a fetch session
// holds some), so the gate hands it the check.
func gateFetch(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.FetchRequest)
	follower := fromFollower(req)
	clusterAction := follower && g.cluster(metadata.OpClusterAction)
	allowed := map[string]bool{}
	g.r.topicRefused = func(name string) bool {
		ok, seen := allowed[name]
		if !seen {
			ok = clusterAction || (!follower && g.topic(metadata.OpRead, name))
			allowed[name] = ok
		}
		return !ok
	}
	return verdict{}
}

// gateListOffsets: DESCRIBE on each topic, refused per partition.
func gateListOffsets(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.ListOffsetsRequest)
	kept, refused := split(req.Topics, func(t kmsg.ListOffsetsRequestTopic) bool { return g.topic(metadata.OpDescribe, t.Topic) })
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.ListOffsetsResponse)
		for _, t := range refused {
			rt := kmsg.NewListOffsetsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewListOffsetsResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
				rp.Timestamp, rp.Offset, rp.LeaderEpoch = -1, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}

// gateOffsetForLeaderEpoch: CLUSTER_ACTION allows every topic, else each
// needs DESCRIBE, refused per partition.
func gateOffsetForLeaderEpoch(g *gatekeeper) verdict {
	if g.cluster(metadata.OpClusterAction) {
		return verdict{}
	}
	req := g.r.Body.(*kmsg.OffsetForLeaderEpochRequest)
	kept, refused := split(req.Topics, func(t kmsg.OffsetForLeaderEpochRequestTopic) bool {
		return g.topic(metadata.OpDescribe, t.Topic)
	})
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.OffsetForLeaderEpochResponse)
		for _, t := range refused {
			rt := kmsg.NewOffsetForLeaderEpochResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
				rp.LeaderEpoch, rp.EndOffset = -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}

// refusedMetadataTopic is a topic Metadata answers
// TOPIC_AUTHORIZATION_FAILED, with no id when named.
func refusedMetadataTopic(name *string, id [16]byte) kmsg.MetadataResponseTopic {
	t := kmsg.NewMetadataResponseTopic()
	t.Topic, t.TopicID, t.ErrorCode = name, id, kerr.TopicAuthorizationFailed.Code
	t.AuthorizedOperations = authorizedOperationsNotRequested
	return t
}

// gateMetadata: a topic the principal may not DESCRIBE is left out of an
// all-topics answer and answered TOPIC_AUTHORIZATION_FAILED when named
// (with its id when named by id, without when named by name); a missing
// topic is auto-created only with CREATE on the cluster or the topic,
// else TOPIC_AUTHORIZATION_FAILED. authorized_operations are the
// principal's when asked for.
func gateMetadata(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.MetadataRequest)
	v := req.Version
	allTopics := req.Topics == nil || (v == 0 && len(req.Topics) == 0)
	var refused []kmsg.MetadataResponseTopic
	emptied := false
	if !allTopics {
		autoCreate := g.b.opts.AutoCreateTopics && (v < 4 || req.AllowAutoTopicCreation)
		clusterCreate := -1
		kept, out := split(req.Topics, func(t kmsg.MetadataRequestTopic) bool {
			if t.Topic == nil {
				name, known := g.topicName("", t.TopicID)
				if known && !g.topic(metadata.OpDescribe, name) {
					refused = append(refused, refusedMetadataTopic(nil, t.TopicID))
					return false
				}
				return true
			}
			name := *t.Topic
			if !g.topic(metadata.OpDescribe, name) {
				refused = append(refused, refusedMetadataTopic(t.Topic, [16]byte{}))
				return false
			}
			if _, exists := g.img.Topic(name); exists || !autoCreate {
				return true
			}
			if clusterCreate < 0 {
				clusterCreate = 0
				if g.probe(metadata.OpCreate, metadata.ResourceCluster, metadata.ClusterResourceName) {
					clusterCreate = 1
				}
			}
			if clusterCreate == 1 || g.topic(metadata.OpCreate, name) {
				return true
			}
			refused = append(refused, refusedMetadataTopic(t.Topic, [16]byte{}))
			return false
		})
		if len(out) > 0 {
			req.Topics = kept
			emptied = len(kept) == 0
			if req.Topics == nil {
				req.Topics = []kmsg.MetadataRequestTopic{}
			}
		}
	}
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.MetadataResponse)
		if emptied {
			resp.Topics = nil
		}
		if allTopics {
			resp.Topics, _ = split(resp.Topics, func(t kmsg.MetadataResponseTopic) bool {
				return t.Topic == nil || g.topic(metadata.OpDescribe, *t.Topic)
			})
		}
		if v >= 8 && req.IncludeTopicAuthorizedOperations {
			for i := range resp.Topics {
				if t := &resp.Topics[i]; t.Topic != nil {
					t.AuthorizedOperations = g.operations(metadata.ResourceTopic, *t.Topic, topicOperations)
				}
			}
		}
		resp.Topics = append(resp.Topics, refused...)
		if v >= 8 && v <= 10 && req.IncludeClusterAuthorizedOperations {
			resp.AuthorizedOperations = 0
			if g.cluster(metadata.OpDescribe) {
				resp.AuthorizedOperations = g.operations(metadata.ResourceCluster, metadata.ClusterResourceName, clusterOperations)
			}
		}
	}}
}

// gateDescribeTopicPartitions: as Metadata, a topic the principal may not
// DESCRIBE is left out of an all-topics answer and answered
// TOPIC_AUTHORIZATION_FAILED when named.
func gateDescribeTopicPartitions(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeTopicPartitionsRequest)
	allTopics := len(req.Topics) == 0
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DescribeTopicPartitionsResponse)
		var out []kmsg.DescribeTopicPartitionsResponseTopic
		for _, t := range resp.Topics {
			if t.Topic != nil && !g.topic(metadata.OpDescribe, *t.Topic) {
				if allTopics {
					continue
				}
				refusedT := kmsg.NewDescribeTopicPartitionsResponseTopic()
				refusedT.Topic, refusedT.ErrorCode = t.Topic, kerr.TopicAuthorizationFailed.Code
				refusedT.AuthorizedOperations = authorizedOperationsNotRequested
				out = append(out, refusedT)
				continue
			}
			if t.Topic != nil && t.AuthorizedOperations != authorizedOperationsNotRequested {
				t.AuthorizedOperations = g.operations(metadata.ResourceTopic, *t.Topic, topicOperations)
			}
			out = append(out, t)
		}
		resp.Topics = out
	}}
}

// gateDescribeProducers: READ on each topic, refused per partition.
func gateDescribeProducers(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeProducersRequest)
	kept, refused := split(req.Topics, func(t kmsg.DescribeProducersRequestTopic) bool { return g.topic(metadata.OpRead, t.Topic) })
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DescribeProducersResponse)
		for _, t := range refused {
			rt := kmsg.NewDescribeProducersResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewDescribeProducersResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p, kerr.TopicAuthorizationFailed.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}
