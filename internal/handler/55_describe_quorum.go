package handler

// DescribeQuorum (key 55), versions 0–2.
//
//	v0: leader id, epoch and high watermark of the metadata partition, and
//	    each voter's and observer's log end offset.
//	v1: each replica's last fetch and last caught-up timestamps.
//	v2: error messages, each voter's directory id, and the voters'
//	    listeners (nodes).
//
// The node is the single voter and leader of its metadata log
// (__cluster_metadata-0), as a single-node Kafka in combined mode is; there
// are no observers. As Kafka's raft leader answers: the leader's own
// timestamps are now, its log end offset the log's; the directory id is
// zero under kraft.version 0 (a static quorum) and the log dir's id
// under kraft.version 1. The voter's listeners are those Kafka names: the
// last VotersRecord's under kraft.version 1, else the controller listeners
// of the config (controller.listener.names, or the node's entry of
// controller.quorum.voters); Karst binds none of them, so with none
// configured they are the broker's advertised listeners, where it answers
// the controller's requests (internal/node/quorum.go). A request that names anything
// but exactly __cluster_metadata-0 gets UNKNOWN_TOPIC_OR_PARTITION on each
// partition it names.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(55, 0, 2, (*Broker).handleDescribeQuorum) }

// QuorumStatus is the metadata log as its raft leader sees it.
type QuorumStatus struct {
	// LeaderEpoch is the current raft epoch (the last leader's until this
	// process first writes to the log).
	LeaderEpoch   int32
	HighWatermark int64
	LogEndOffset  int64
	// DirectoryID is the voter's directory id: zero with kraft.version 0.
	DirectoryID metadata.UUID
	// Listeners are the voter's controller endpoints; none means the
	// broker's advertised listeners.
	Listeners []metadata.VoterEndpoint
}

// Quorum reports the state of the node's metadata quorum.
type Quorum interface {
	QuorumStatus() QuorumStatus
}

// Kafka's default messages for the partition errors DescribeQuorum sends.
const (
	msgUnknownTopicOrPartition = "This server does not host this topic-partition."
	msgNotLeaderOrFollower     = "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition."
)

func (b *Broker) handleDescribeQuorum(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeQuorumRequest)
	resp := kmsg.NewPtrDescribeQuorumResponse()
	empty := ""
	if len(req.Topics) != 1 || req.Topics[0].Topic != metadata.ClusterMetadataTopic ||
		len(req.Topics[0].Partitions) != 1 || req.Topics[0].Partitions[0].Partition != 0 {
		for _, t := range req.Topics {
			out := kmsg.NewDescribeQuorumResponseTopic()
			out.Topic = t.Topic
			for _, p := range t.Partitions {
				out.Partitions = append(out.Partitions, quorumPartitionError(p.Partition, kerr.UnknownTopicOrPartition.Code, msgUnknownTopicOrPartition))
			}
			resp.Topics = append(resp.Topics, out)
		}
		return Ready(resp)
	}
	topic := kmsg.NewDescribeQuorumResponseTopic()
	topic.Topic = metadata.ClusterMetadataTopic
	if b.opts.Quorum == nil {
		topic.Partitions = append(topic.Partitions, quorumPartitionError(0, kerr.NotLeaderForPartition.Code, msgNotLeaderOrFollower))
		resp.Topics = append(resp.Topics, topic)
		return Ready(resp)
	}
	resp.ErrorMessage = &empty
	status := b.opts.Quorum.QuorumStatus()
	now := time.Now().UnixMilli()
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.ErrorMessage = &empty
	p.LeaderID, p.LeaderEpoch, p.HighWatermark = b.opts.NodeID, status.LeaderEpoch, status.HighWatermark
	voter := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
	voter.ReplicaID, voter.ReplicaDirectoryID, voter.LogEndOffset = b.opts.NodeID, status.DirectoryID, status.LogEndOffset
	voter.LastFetchTimestamp, voter.LastCaughtUpTimestamp = now, now
	p.CurrentVoters = []kmsg.DescribeQuorumResponseTopicPartitionReplicaState{voter}
	p.Observers = []kmsg.DescribeQuorumResponseTopicPartitionReplicaState{}
	topic.Partitions = append(topic.Partitions, p)
	resp.Topics = append(resp.Topics, topic)
	node := kmsg.NewDescribeQuorumResponseNode()
	node.NodeID = b.opts.NodeID
	listeners := status.Listeners
	if len(listeners) == 0 {
		for _, ep := range b.opts.Advertised {
			listeners = append(listeners, metadata.VoterEndpoint{Name: ep.ListenerName, Host: ep.Host, Port: uint16(ep.Port)})
		}
	}
	for _, ep := range listeners {
		l := kmsg.NewDescribeQuorumResponseNodeListener()
		l.Name, l.Host, l.Port = ep.Name, ep.Host, ep.Port
		node.Listeners = append(node.Listeners, l)
	}
	resp.Nodes = append(resp.Nodes, node)
	return Ready(resp)
}

func quorumPartitionError(partition int32, code int16, msg string) kmsg.DescribeQuorumResponseTopicPartition {
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.Partition, p.ErrorCode, p.ErrorMessage = partition, code, &msg
	return p
}
