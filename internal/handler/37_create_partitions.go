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
// The partitions the request adds over all its topics are held to the
// records Kafka's controller writes for one request: above them, every
// topic is answered POLICY_VIOLATION, as Kafka's whole request fails when
// its records overflow the controller's bounded list.
// validate_only checks everything and creates nothing. The timeout is not
// needed: the partitions exist when the response is sent.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(37, 0, 3, (*Broker).handleCreatePartitions) }

func (b *Broker) handleCreatePartitions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.CreatePartitionsRequest)
	resp := kmsg.NewPtrCreatePartitionsResponse()
	seen := map[string]int{}
	for _, t := range req.Topics {
		seen[t.Topic]++
	}
	if b.partitionsAdded(req, seen) > metadata.MaxRecordsPerOperation {
		return Ready(refuseCreatePartitions(req, metadata.ErrTooLarge()))
	}
	mutations := b.mutationQuota(r, createPartitionsStrictSince)
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
		err := mutate(mutations, req.ValidateOnly, func() ([]metadata.Record, error) {
			return b.image().CreatePartitions(b.opts.Metadata.Node(), t.Topic, t.Count, assignments)
		}, func() error {
			return b.opts.Metadata.CreatePartitions(t.Topic, t.Count, assignments)
		})
		if err != nil {
			out.ErrorCode, out.ErrorMessage = errorCode(err), errorMessage(err)
		} else if !req.ValidateOnly {
			b.logger.Info("created partitions", "topic", t.Topic, "count", t.Count)
		}
		resp.Topics = append(resp.Topics, out)
	}
	resp.ThrottleMillis = throttleMillis(mutations)
	return Ready(resp)
}

// partitionsAdded is how many partitions the request would add: the
// growth of each topic named once that exists, is grown and has as many
// assignments as new partitions, if any (what Kafka's controller would
// write records for).
func (b *Broker) partitionsAdded(req *kmsg.CreatePartitionsRequest, seen map[string]int) int64 {
	img := b.image()
	var total int64
	for _, t := range req.Topics {
		tp, ok := img.Topic(t.Topic)
		if !ok || seen[t.Topic] != 1 {
			continue
		}
		added := int64(t.Count) - int64(len(tp.Partitions))
		if added > 0 && (t.Assignment == nil || int64(len(t.Assignment)) == added) {
			total += added
		}
	}
	return total
}

// refuseCreatePartitions answers every topic of the request with one
// error, as Kafka's CreatePartitionsRequest.getErrorResponse does when
// the controller fails the whole request.
func refuseCreatePartitions(req *kmsg.CreatePartitionsRequest, err error) *kmsg.CreatePartitionsResponse {
	resp, code, msg := kmsg.NewPtrCreatePartitionsResponse(), errorCode(err), errorMessage(err)
	for _, t := range req.Topics {
		resp.Topics = append(resp.Topics, kmsg.CreatePartitionsResponseTopic{Topic: t.Topic, ErrorCode: code, ErrorMessage: msg})
	}
	return resp
}
