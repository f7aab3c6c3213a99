package handler

// AlterPartitionReassignments (key 45), versions 0–1.
//
//	v0: per partition, the target replicas, or null to cancel (KIP-455).
//	v1: allow_replication_factor_change (KIP-860; default true), echoed in
//	    the response.
//
// Checked as Kafka's controller checks a reassignment: an unknown topic or
// partition is UNKNOWN_TOPIC_OR_PARTITION; an empty target, a broker that
// is not registered or one named twice is INVALID_REPLICA_ASSIGNMENT; with
// allow_replication_factor_change off, a target of another size is
// INVALID_REPLICATION_FACTOR; cancelling where nothing is being reassigned
// is NO_REASSIGNMENT_IN_PROGRESS. On one node the only registered broker is
// the node itself, so a target is valid only as [node]: the replicas the
// partition already has, which completes at once with nothing written
// (see metadata.Image.ReassignPartition for a log from a larger cluster).

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(45, 0, 1, (*Broker).handleAlterPartitionReassignments) }

func (b *Broker) handleAlterPartitionReassignments(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AlterPartitionAssignmentsRequest)
	resp := kmsg.NewPtrAlterPartitionAssignmentsResponse()
	allowFactorChange := req.AllowReplicationFactorChange || r.Version() == 0
	resp.AllowReplicationFactorChange = allowFactorChange
	for _, t := range req.Topics {
		out := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		out.Topic = t.Topic
		for _, p := range t.Partitions {
			var err error
			if p.Replicas == nil {
				err = b.image().CancelReassignment(t.Topic, p.Partition)
			} else {
				err = b.opts.Metadata.ReassignPartition(t.Topic, p.Partition, p.Replicas, allowFactorChange)
			}
			res := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			res.Partition = p.Partition
			res.ErrorCode = errorCode(err)
			if err != nil && res.ErrorCode != kerr.NoReassignmentInProgress.Code {
				res.ErrorMessage = errorMessage(err) // Kafka sends that code alone
			}
			out.Partitions = append(out.Partitions, res)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}
