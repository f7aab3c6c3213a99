package handler

// ElectLeaders (key 43), versions 0–2.
//
//	v0: preferred elections of the named partitions (null: every partition).
//	v1: election_type (0 preferred, 1 unclean) and a top-level error code.
//	v2: flexible.
//
// Decided as Kafka's controller decides them (ReplicationControlManager.
// electLeaders): per named partition ELECTION_NOT_NEEDED when the preferred
// replica already leads (unclean: when there is a leader),
// UNKNOWN_TOPIC_OR_PARTITION for a topic or partition that does not exist,
// PREFERRED_LEADER_NOT_AVAILABLE / ELIGIBLE_LEADERS_NOT_AVAILABLE when no
// replica can take over; an election that is possible is committed as a
// PartitionChangeRecord. A null topic list asks for every partition of
// every topic, internal ones included, and, as in Kafka, leaves out the
// partitions that need no election, so each topic may come back with no
// partitions. An unknown election type fails the whole request with
// INVALID_REQUEST. On one node every partition normally has its only
// replica as leader, so the usual answer is ELECTION_NOT_NEEDED.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(43, 0, 2, (*Broker).handleElectLeaders) }

// Election types of ElectLeaders v1+.
const (
	electionPreferred = 0
	electionUnclean   = 1
)

// kafkaDefaultMessages are Kafka's Errors messages for codes whose kerr
// text differs (kerr drops the final period), sent where Kafka sends the
// default message of a code.
var kafkaDefaultMessages = map[int16]string{
	kerr.ElectionNotNeeded.Code:           "Leader election not needed for topic partition.",
	kerr.PreferredLeaderNotAvailable.Code: "The preferred leader was not available.",
	kerr.EligibleLeadersNotAvailable.Code: "Eligible topic partition leaders are not available.",
}

func (b *Broker) handleElectLeaders(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ElectLeadersRequest)
	resp := kmsg.NewPtrElectLeadersResponse()
	electionType := req.ElectionType
	if r.Version() == 0 {
		electionType = electionPreferred
	}
	if electionType != electionPreferred && electionType != electionUnclean {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return Ready(resp)
	}
	unclean := electionType == electionUnclean
	elect := func(topic string, partition int32) kmsg.ElectLeadersResponseTopicPartition {
		out := kmsg.NewElectLeadersResponseTopicPartition()
		out.Partition = partition
		err := b.opts.Metadata.ElectLeader(topic, partition, unclean)
		out.ErrorCode = errorCode(err)
		if msg, ok := kafkaDefaultMessages[out.ErrorCode]; ok {
			out.ErrorMessage = &msg
		} else if err != nil {
			out.ErrorMessage = errorMessage(err)
		}
		if err == nil {
			b.logger.Info("elected a leader", "topic", topic, "partition", partition, "unclean", unclean)
		}
		return out
	}
	if req.Topics == nil {
		for _, t := range b.image().Topics() {
			out := kmsg.NewElectLeadersResponseTopic()
			out.Topic = t.Name
			for _, p := range t.Partitions {
				if p == nil {
					continue
				}
				if res := elect(t.Name, p.ID); res.ErrorCode != kerr.ElectionNotNeeded.Code {
					out.Partitions = append(out.Partitions, res)
				}
			}
			resp.Topics = append(resp.Topics, out)
		}
		return Ready(resp)
	}
	for _, t := range req.Topics {
		out := kmsg.NewElectLeadersResponseTopic()
		out.Topic = t.Topic
		for _, p := range t.Partitions {
			out.Partitions = append(out.Partitions, elect(t.Topic, p))
		}
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}
