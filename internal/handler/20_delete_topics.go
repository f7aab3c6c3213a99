package handler

// DeleteTopics (key 20), versions 0–6.
//
//	v0: topic names and a timeout (Kafka 4 dropped it, KIP-896; Karst
//	    serves it).
//	v1: throttle time.
//	v4: flexible.
//	v5: per-topic error messages.
//	v6: topics named by name or by id.
//
// Deletion is synchronous: the partitions' logs are closed and their
// directories removed before the response is sent.
//
// Internal topics can be deleted, as in Kafka: when __consumer_offsets
// goes the group coordinator forgets every group, when
// __transaction_state goes the transaction coordinator forgets every
// transactional id, and the next use creates the topic again.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/quota"
)

func init() { register(20, 0, 6, (*Broker).handleDeleteTopics) }

func (b *Broker) handleDeleteTopics(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DeleteTopicsRequest)
	resp := kmsg.NewPtrDeleteTopicsResponse()
	targets := req.Topics
	if r.Version() < 6 {
		targets = nil
		for _, name := range req.TopicNames {
			t := kmsg.NewDeleteTopicsRequestTopic()
			t.Topic = &name
			targets = append(targets, t)
		}
	}
	mutations := b.mutationQuota(r, deleteTopicsStrictSince)
	for _, t := range targets {
		out := kmsg.NewDeleteTopicsResponseTopic()
		var err error
		if mutations.Enabled() {
			err = b.recordTopicDeletion(mutations, t)
		}
		switch {
		case err != nil:
			out.Topic, out.TopicID = t.Topic, t.TopicID
			if topic, ok := b.deletionTarget(t); ok {
				out.Topic, out.TopicID = &topic.Name, [16]byte(topic.ID)
			}
		case t.Topic != nil:
			out.Topic = t.Topic
			var id metadata.UUID
			id, err = b.opts.Metadata.DeleteTopic(*t.Topic)
			out.TopicID = id
		default:
			out.TopicID = t.TopicID
			var name string
			name, err = b.opts.Metadata.DeleteTopicByID(metadata.UUID(t.TopicID))
			if err == nil {
				out.Topic = &name
			}
		}
		if err != nil {
			out.ErrorCode, out.ErrorMessage = errorCode(err), errorMessage(err)
			if t.Topic == nil && out.ErrorCode == kerr.UnknownTopicOrPartition.Code {
				out.ErrorCode = kerr.UnknownTopicID.Code
			}
		} else {
			b.logger.Info("deleted topic", "topic", *out.Topic)
		}
		resp.Topics = append(resp.Topics, out)
	}
	resp.ThrottleMillis = throttleMillis(mutations)
	return Ready(resp)
}

// recordTopicDeletion takes the partitions of the topic t names from the
// mutation quota, as Kafka's controller does once it has found the topic;
// a topic that does not exist takes nothing (its deletion fails anyway).
func (b *Broker) recordTopicDeletion(mutations *quota.MutationQuota, t kmsg.DeleteTopicsRequestTopic) error {
	topic, ok := b.deletionTarget(t)
	if !ok {
		return nil
	}
	return recordMutation(mutations, len(topic.Partitions))
}

// deletionTarget is the topic t names, by name or by id.
func (b *Broker) deletionTarget(t kmsg.DeleteTopicsRequestTopic) (*metadata.Topic, bool) {
	if t.Topic != nil {
		return b.image().Topic(*t.Topic)
	}
	return b.image().TopicByID(metadata.UUID(t.TopicID))
}
