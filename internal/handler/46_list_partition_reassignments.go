package handler

// ListPartitionReassignments (key 46), version 0.
//
//	v0: the reassignments in progress of the named partitions (null topics:
//	    of every partition).
//
// As Kafka's controller answers: only partitions with adding or removing
// replicas are listed, and a topic or partition that does not exist is
// left out rather than reported. Karst completes every reassignment it
// accepts at once, so only a log written by a larger Kafka cluster can
// have any to list.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(46, 0, 0, (*Broker).handleListPartitionReassignments) }

func (b *Broker) handleListPartitionReassignments(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ListPartitionReassignmentsRequest)
	resp := kmsg.NewPtrListPartitionReassignmentsResponse()
	img := b.image()
	add := func(t *metadata.Topic, partitions []int32) {
		moving := t.Reassignments(partitions)
		if len(moving) == 0 {
			return
		}
		out := kmsg.NewListPartitionReassignmentsResponseTopic()
		out.Topic = t.Name
		for _, p := range moving {
			res := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			res.Partition = p.ID
			res.Replicas, res.AddingReplicas, res.RemovingReplicas = nonNil(p.Replicas), nonNil(p.AddingReplicas), nonNil(p.RemovingReplicas)
			out.Partitions = append(out.Partitions, res)
		}
		resp.Topics = append(resp.Topics, out)
	}
	if req.Topics == nil {
		for _, t := range img.Topics() {
			add(t, nil)
		}
		return Ready(resp)
	}
	for _, rt := range req.Topics {
		if t, ok := img.Topic(rt.Topic); ok {
			add(t, nonNil(rt.Partitions))
		}
	}
	return Ready(resp)
}
