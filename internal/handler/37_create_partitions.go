package handler

// CreatePartitions (key 37), versions 0–3.
//
//	v0: topics with a new partition count and optional assignments;
//	    timeout and validate_only.
//	v1: no change (throttling after the response).
//	v2: flexible.
//	v3: no change.
//
// As Kafka's controller: a topic named twice is INVALID_REQUEST ("Duplicate
// topic name."); a count equal to or below the current one is
// INVALID_PARTITIONS; assignments must name one replica list per new
// partition, each naming only this node (INVALID_REPLICA_ASSIGNMENT).
// validate_only checks everything and creates nothing. The timeout is not
// needed: the partitions exist when the response is sent.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(37, 0, 3, (*Broker).handleCreatePartitions) }

func (b *Broker) handleCreatePartitions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.CreatePartitionsRequest)
	resp := kmsg.NewPtrCreatePartitionsResponse()
	seen := map[string]int{}
	for _, t := range req.Topics {
		seen[t.Topic]++
	}
	for _, t := range req.Topics {
		out := kmsg.NewCreatePartitionsResponseTopic()
		out.Topic = t.Topic
		switch n := seen[t.Topic]; {
		case n == 0:
			continue // a duplicate already answered
		case n > 1:
			seen[t.Topic] = 0
			out.ErrorCode = kerr.InvalidRequest.Code
			msg := "Duplicate topic name."
			out.ErrorMessage = &msg
			resp.Topics = append(resp.Topics, out)
			continue
		}
		var assignments [][]int32
		if t.Assignment != nil {
			assignments = make([][]int32, 0, len(t.Assignment))
			for _, a := range t.Assignment {
				assignments = append(assignments, a.Replicas)
			}
		}
		var err error
		if req.ValidateOnly {
			_, err = b.image().CreatePartitions(b.opts.Metadata.Node(), t.Topic, t.Count, assignments)
		} else {
			err = b.opts.Metadata.CreatePartitions(t.Topic, t.Count, assignments)
		}
		if err != nil {
			out.ErrorCode, out.ErrorMessage = errorCode(err), errorMessage(err)
		} else if !req.ValidateOnly {
			b.logger.Info("created partitions", "topic", t.Topic, "count", t.Count)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}
