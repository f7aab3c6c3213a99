package handler

// CreateTopics (key 19), versions 0–7.
//
//	v0: topics with partitions or assignments and configs.
//	v1: validate_only.
//	Kafka 4 dropped v0–v1 (KIP-896); Karst serves them.
//	v2: error messages.
//	v3: no change.
//	v4: -1 partitions / replication factor mean the broker defaults.
//	v5: flexible; the response reports partitions, replication factor and
//	    the resulting configs.
//	v6: no change.
//	v7: topic ids in the response.
//
// As Kafka's controller, before anything else, a request asking for more
// than metadata.MaxPartitionsPerRequest partitions over its topics (each
// counted once; -1 as the default) is refused whole: every topic is
// answered POLICY_VIOLATION. Nothing is sized by a count or partition
// index from the wire before that check.
// validate_only checks everything and creates nothing. The timeout is not
// needed: creation has finished when the response is sent.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(19, 0, 7, (*Broker).handleCreateTopics) }

func (b *Broker) handleCreateTopics(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.CreateTopicsRequest)
	resp := kmsg.NewPtrCreateTopicsResponse()
	seen := map[string]int{}
	for _, t := range req.Topics {
		seen[t.Topic]++
	}
	if b.requestedPartitions(req, seen) > metadata.MaxPartitionsPerRequest {
		return Ready(refuseCreateTopics(req, metadata.ErrTooManyPartitions()))
	}
	mutations := b.mutationQuota(r, createTopicsStrictSince)
	for _, t := range req.Topics {
		out := kmsg.NewCreateTopicsResponseTopic()
		out.Topic = t.Topic
		out.NumPartitions, out.ReplicationFactor = -1, -1
		if seen[t.Topic] > 1 {
			out.ErrorCode = kerr.InvalidRequest.Code
			msg := "Create topics request from client contains multiple entries for the following topics: " + t.Topic
			out.ErrorMessage = &msg
			resp.Topics = append(resp.Topics, out)
			continue
		}
		ct := metadata.CreateTopicRequest{
			Name:              t.Topic,
			NumPartitions:     t.NumPartitions,
			ReplicationFactor: t.ReplicationFactor,
			Configs:           map[string]*string{},
		}
		for _, a := range t.ReplicaAssignment {
			ct.Assignments = append(ct.Assignments, metadata.PartitionAssignment{Partition: a.Partition, Replicas: a.Replicas})
		}
		for _, c := range t.Configs {
			ct.Configs[c.Name] = c.Value
		}
		err := mutate(mutations, req.ValidateOnly, func() ([]metadata.Record, error) {
			records, _, err := b.image().CreateTopic(b.opts.Metadata.Node(), ct)
			return records, err
		}, func() error {
			_, err := b.opts.Metadata.CreateTopic(ct)
			return err
		})
		if err != nil {
			// Kafka answers a topic it refused with an empty (not null) config list from v5.
			out.ErrorCode, out.ErrorMessage = errorCode(err), errorMessage(err)
			out.Configs = []kmsg.CreateTopicsResponseTopicConfig{}
			resp.Topics = append(resp.Topics, out)
			continue
		}
		if !req.ValidateOnly {
			b.logger.Info("created topic", "topic", t.Topic)
		}
		b.describeCreatedTopic(&out, ct, req.ValidateOnly)
		resp.Topics = append(resp.Topics, out)
	}
	resp.ThrottleMillis = throttleMillis(mutations)
	return Ready(resp)
}

// describeCreatedTopic fills the v5+ fields: what the topic got.
func (b *Broker) describeCreatedTopic(out *kmsg.CreateTopicsResponseTopic, ct metadata.CreateTopicRequest, validateOnly bool) {
	node := b.opts.Metadata.Node()
	out.NumPartitions, out.ReplicationFactor = ct.NumPartitions, ct.ReplicationFactor
	if len(ct.Assignments) > 0 {
		out.NumPartitions, out.ReplicationFactor = int32(len(ct.Assignments)), int16(len(ct.Assignments[0].Replicas))
	}
	if out.NumPartitions == -1 {
		out.NumPartitions = node.DefaultPartitions
	}
	if out.ReplicationFactor == -1 {
		out.ReplicationFactor = node.DefaultReplicationFactor
	}
	if t, ok := b.image().Topic(ct.Name); ok && !validateOnly {
		out.TopicID = t.ID
	}
	// Kafka always answers a created topic with its configs (never null;
	// the Java admin client relies on it): every topic config in effect,
	// each with its source, as DescribeConfigs would describe it.
	out.Configs = []kmsg.CreateTopicsResponseTopicConfig{}
	overrides := map[string]string{}
	for name, value := range ct.Configs {
		if value != nil {
			overrides[name] = *value
		}
	}
	img := b.image()
	cfg, err := b.brokerConfig(img)
	if err != nil {
		return
	}
	entries, err := cfg.DescribeTopic(overrides, nil)
	if err != nil {
		return
	}
	for _, e := range entries {
		c := kmsg.NewCreateTopicsResponseTopicConfig()
		c.Name, c.Value, c.ReadOnly, c.IsSensitive = e.Name, e.Value, e.ReadOnly, e.Sensitive
		c.Source = int8(e.Source)
		out.Configs = append(out.Configs, c)
	}
}

// requestedPartitions is the partitions a request asks for over the topics
// Kafka's controller would be given: not those named twice, nor
// __cluster_metadata, which the broker answers itself.
func (b *Broker) requestedPartitions(req *kmsg.CreateTopicsRequest, seen map[string]int) int64 {
	node := b.opts.Metadata.Node()
	var total int64
	for _, t := range req.Topics {
		if seen[t.Topic] == 1 && t.Topic != metadata.ClusterMetadataTopic {
			total += node.RequestedPartitions(t.NumPartitions, len(t.ReplicaAssignment))
		}
	}
	return total
}

// refuseCreateTopics answers every topic of the request, duplicates
// included, with one error, as Kafka's CreateTopicsRequest.getErrorResponse
// does when the controller fails the whole request.
func refuseCreateTopics(req *kmsg.CreateTopicsRequest, err error) *kmsg.CreateTopicsResponse {
	resp, code, msg := kmsg.NewPtrCreateTopicsResponse(), errorCode(err), errorMessage(err)
	for _, t := range req.Topics {
		resp.Topics = append(resp.Topics, kmsg.CreateTopicsResponseTopic{Topic: t.Topic, ErrorCode: code, ErrorMessage: msg, NumPartitions: -1, ReplicationFactor: -1})
	}
	return resp
}
