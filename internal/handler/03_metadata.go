package handler

// Metadata (key 3), versions 0–13.
//
//	v0: brokers and topics; an empty topic list means all topics.
//	v1: controller id, rack, internal flag; a null topic list means all.
//	v2: cluster id.
//	v3: throttle time.
//	v4: allow_auto_topic_creation.
//	v5: offline replicas.
//	v7: leader epoch.
//	v8: authorized operations (v8–v10 also per cluster).
//	v9: flexible.
//	v10: topic ids.
//	v11: cluster authorized operations dropped.
//	v12: topics may be named by id alone.
//	v13: top-level error code.
//
// Not done yet: topics (no topic is known until the partition log lands),
// so every named topic is answered UNKNOWN_TOPIC_OR_PARTITION.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(3, 0, 13, (*Broker).handleMetadata) }

func (b *Broker) handleMetadata(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.MetadataRequest)
	resp := kmsg.NewPtrMetadataResponse()
	resp.SetVersion(r.Version())
	if ep, ok := b.endpointFor(r.Conn.ListenerName); ok {
		broker := kmsg.NewMetadataResponseBroker()
		broker.NodeID, broker.Host, broker.Port, broker.Rack = b.opts.NodeID, ep.Host, ep.Port, b.opts.Rack
		resp.Brokers = append(resp.Brokers, broker)
	}
	clusterID := b.opts.ClusterID
	resp.ClusterID = &clusterID
	resp.ControllerID = b.opts.NodeID
	resp.AuthorizedOperations = authorizedOperationsNotRequested
	for _, t := range req.Topics {
		topic := kmsg.NewMetadataResponseTopic()
		topic.Topic, topic.TopicID = t.Topic, t.TopicID
		topic.ErrorCode = kerr.UnknownTopicOrPartition.Code
		topic.AuthorizedOperations = authorizedOperationsNotRequested
		resp.Topics = append(resp.Topics, topic)
	}
	return Ready(resp)
}

// authorizedOperationsNotRequested is Kafka's sentinel (Integer.MIN_VALUE)
// for "the client did not ask for authorized operations".
const authorizedOperationsNotRequested = -2147483648
