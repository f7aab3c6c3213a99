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
	for _, t := range targets {
		out := kmsg.NewDeleteTopicsResponseTopic()
		var err error
		if t.Topic != nil {
			out.Topic = t.Topic
			var id metadata.UUID
			id, err = b.opts.Metadata.DeleteTopic(*t.Topic)
			out.TopicID = id
		} else {
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
	return Ready(resp)
}
