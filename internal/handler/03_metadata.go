package handler

// Metadata (key 3), versions 0–13.
//
//	v0: brokers and topics; an empty topic list means all topics.
//	v1: controller id, rack, internal flag; a null topic list means all.
//	v2: cluster id.
//	v3: throttle time.
//	v4: allow_auto_topic_creation (before v4 creation is always allowed).
//	v5: offline replicas.
//	v7: leader epoch.
//	v8: authorized operations (v8–v10 also per cluster).
//	v9: flexible.
//	v10: topic ids.
//	v11: cluster authorized operations dropped.
//	v12: topics may be named by id alone.
//	v13: top-level error code.
//
// A named topic that does not exist is created when auto.create.topics.enable
// is on and the request allows it, with num.partitions partitions, as Kafka
// does; it is answered ready at once because creation here is synchronous.

import (
	"context"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(3, 0, 13, (*Broker).handleMetadata) }

func (b *Broker) handleMetadata(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.MetadataRequest)
	resp := kmsg.NewPtrMetadataResponse()
	resp.SetVersion(r.Version())
	if r.Version() < 12 && namesTopicByID(req) {
		return Ready(metadataInvalidRequest(req, resp))
	}
	if ep, ok := b.endpointFor(r.Conn.ListenerName); ok && b.registered() {
		broker := kmsg.NewMetadataResponseBroker()
		broker.NodeID, broker.Host, broker.Port, broker.Rack = b.opts.NodeID, ep.Host, ep.Port, b.opts.Rack
		resp.Brokers = append(resp.Brokers, broker)
	}
	clusterID := b.opts.ClusterID
	resp.ClusterID = &clusterID
	resp.ControllerID = b.controllerID()
	resp.AuthorizedOperations = authorizedOperationsNotRequested

	allTopics := req.Topics == nil || (r.Version() == 0 && len(req.Topics) == 0)
	if allTopics {
		for _, t := range b.image().Topics() {
			resp.Topics = append(resp.Topics, b.metadataTopic(t))
		}
	} else {
		autoCreate := b.opts.AutoCreateTopics && (r.Version() < 4 || req.AllowAutoTopicCreation)
		for _, rt := range req.Topics {
			resp.Topics = append(resp.Topics, b.metadataRequestedTopic(rt, autoCreate))
		}
	}
	addMetadataAuthorizedOperations(r.Version(), req, resp)
	return Ready(resp)
}

// addMetadataAuthorizedOperations fills the authorized operations a v8+
// request asked for, on every topic answered and (v8-v10) on the cluster,
// as Kafka's KafkaApis does.
func addMetadataAuthorizedOperations(v int16, req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse) {
	if v >= 8 && req.IncludeTopicAuthorizedOperations {
		for i := range resp.Topics {
			resp.Topics[i].AuthorizedOperations = topicAuthorizedOperations
		}
	}
	if v >= 8 && v <= 10 && req.IncludeClusterAuthorizedOperations {
		resp.AuthorizedOperations = clusterAuthorizedOperations
	}
}

// namesTopicByID: some requested topic has no name or carries a topic id,
// which only v12+ allows.
func namesTopicByID(req *kmsg.MetadataRequest) bool {
	for _, rt := range req.Topics {
		if rt.Topic == nil || rt.TopicID != [16]byte{} {
			return true
		}
	}
	return false
}

// metadataInvalidRequest is Kafka's error answer to a Metadata request it
// refuses: each requested topic with INVALID_REQUEST, no brokers, no
// cluster id.
func metadataInvalidRequest(req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse) *kmsg.MetadataResponse {
	for _, rt := range req.Topics {
		out := kmsg.NewMetadataResponseTopic()
		name := ""
		if rt.Topic != nil {
			name = *rt.Topic
		}
		out.Topic, out.TopicID, out.ErrorCode = &name, rt.TopicID, kerr.InvalidRequest.Code
		resp.Topics = append(resp.Topics, out)
	}
	return resp
}

func (b *Broker) metadataRequestedTopic(rt kmsg.MetadataRequestTopic, autoCreate bool) kmsg.MetadataResponseTopic {
	img := b.image()
	if rt.Topic == nil {
		if t, ok := img.TopicByID(metadata.UUID(rt.TopicID)); ok {
			return b.metadataTopic(t)
		}
		out := kmsg.NewMetadataResponseTopic()
		out.TopicID = rt.TopicID
		out.ErrorCode = kerr.UnknownTopicID.Code
		out.AuthorizedOperations = authorizedOperationsNotRequested
		return out
	}
	name := *rt.Topic
	if t, ok := img.Topic(name); ok {
		return b.metadataTopic(t)
	}
	out := kmsg.NewMetadataResponseTopic()
	out.Topic = &name
	out.AuthorizedOperations = authorizedOperationsNotRequested
	out.ErrorCode = kerr.UnknownTopicOrPartition.Code
	if !autoCreate {
		return out
	}
	if reason := metadata.ValidateTopicName(name); reason != "" || metadata.IsInternalTopic(name) {
		out.ErrorCode = kerr.InvalidTopicException.Code
		return out
	}
	// Kafka 4.4 (KRaft) answers the request that creates a topic with UNKNOWN_TOPIC_OR_PARTITION,
	// no partitions and no topic id: the topic exists once the controller has committed it, and
	// clients retry. Clients written against Kafka (kafka-go's tests) expect that answer. A
	// creation the controller refuses (no registered broker to place a replica on, after
	// UnregisterBroker of this node) gets the same answer, its error only logged, as Kafka's
	// DefaultAutoTopicCreationManager does.
	_, err := b.opts.Metadata.CreateTopic(metadata.CreateTopicRequest{Name: name, NumPartitions: -1, ReplicationFactor: -1})
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		b.logger.Warn("Auto topic creation failed for "+name, "err", err)
		return out
	}
	b.logger.Info("auto-created topic", "topic", name)
	return out
}

func (b *Broker) metadataTopic(t *metadata.Topic) kmsg.MetadataResponseTopic {
	out := kmsg.NewMetadataResponseTopic()
	name := t.Name
	out.Topic = &name
	out.TopicID = t.ID
	out.IsInternal = metadata.IsInternalTopic(t.Name)
	out.AuthorizedOperations = authorizedOperationsNotRequested
	registered := b.registered()
	for _, p := range t.Partitions {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = p.ID
		mp.Leader = p.Leader
		mp.LeaderEpoch = p.LeaderEpoch
		mp.Replicas = p.Replicas
		mp.ISR = p.ISR
		mp.OfflineReplicas = []int32{}
		switch _, open := b.opts.Storage.Get(t.Name, p.ID); {
		case b.opts.Storage.OfflineReplica(t.Name, p.ID):
			// Its log dir failed (at run time or before the start): as
			// Kafka's controller does for the last ISR member's offline
			// directory, no leader, and this node listed offline
			// (KRaftMetadataCache.getOfflineReplicas).
			mp.ErrorCode = kerr.LeaderNotAvailable.Code
			mp.Leader = -1
			mp.OfflineReplicas = []int32{b.opts.NodeID}
		case !open || p.Leader < 0:
			mp.ErrorCode = kerr.LeaderNotAvailable.Code
		}
		if !registered && slices.Contains(p.Replicas, b.opts.NodeID) {
			// Kafka lists a replica without a registration offline.
			mp.OfflineReplicas = []int32{b.opts.NodeID}
		}
		out.Partitions = append(out.Partitions, mp)
	}
	return out
}

// image is the current metadata image; a broker built without a store (the
// server package's tests) answers from an empty one.
func (b *Broker) image() *metadata.Image {
	if b.opts.Metadata == nil {
		return metadata.EmptyImage()
	}
	return b.opts.Metadata.Image()
}

// authorizedOperationsNotRequested is Kafka's sentinel (Integer.MIN_VALUE)
// for "the client did not ask for authorized operations".
const authorizedOperationsNotRequested = -2147483648
