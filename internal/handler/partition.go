package handler

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// The data path (Produce, Fetch, ListOffsets, DeleteRecords, the markers of
// WriteTxnMarkers, OffsetForLeaderEpoch, DescribeProducers) resolves what a
// request names in two steps, as Kafka's KafkaApis and ReplicaManager do:
// requestTopic for each topic, then leaderPartition for each of its
// partitions.

// requestTopic resolves a topic a request names: by topic id when the
// version names topics by id (Produce v13, Fetch v13, OffsetCommit v10,
// TxnOffsetCommit v6), else by name. As in Kafka, an id the metadata does
// not know is UNKNOWN_TOPIC_ID for each of its partitions, a name
// UNKNOWN_TOPIC_OR_PARTITION.
func requestTopic(img *metadata.Image, byID bool, name string, id [16]byte) (*metadata.Topic, int16) {
	if byID {
		if t, ok := img.TopicByID(metadata.UUID(id)); ok {
			return t, 0
		}
		return nil, kerr.UnknownTopicID.Code
	}
	if t, ok := img.Topic(name); ok {
		return t, 0
	}
	return nil, kerr.UnknownTopicOrPartition.Code
}

// leaderPartition finds a partition of topic that this node leads, with
// the errors of Kafka's ReplicaManager.getPartitionOrError and
// Partition.getLocalLog, in their order: a partition the topic lacks is
// UNKNOWN_TOPIC_OR_PARTITION; one that went offline with its log dir
// KAFKA_STORAGE_ERROR; one the metadata has but this node does not host
// NOT_LEADER_OR_FOLLOWER (the client refreshes its metadata), including
// one never loaded because its log dir had failed at start, as in Kafka. Then the
// client's view of the leader epoch (KIP-320; -1 skips it): an older epoch
// is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH. Last, a
// partition whose leader is not this node (another broker, or -1 once it
// went offline) is NOT_LEADER_OR_FOLLOWER. The metadata partition is
// returned whenever the topic has it, errors included, for the leader that
// Produce and Fetch name beside NOT_LEADER_OR_FOLLOWER.
func (b *Broker) leaderPartition(topic *metadata.Topic, partition, currentLeaderEpoch int32) (*storage.Partition, *metadata.Partition, int16) {
	meta, found := topic.Partition(partition)
	if !found {
		return nil, nil, kerr.UnknownTopicOrPartition.Code
	}
	if b.opts.Storage.Offline(topic.Name, partition) {
		return nil, meta, kerr.KafkaStorageError.Code
	}
	part, open := b.opts.Storage.Get(topic.Name, partition)
	switch {
	case !open:
		return nil, meta, kerr.NotLeaderForPartition.Code
	case currentLeaderEpoch >= 0 && currentLeaderEpoch < meta.LeaderEpoch:
		return nil, meta, kerr.FencedLeaderEpoch.Code
	case currentLeaderEpoch > meta.LeaderEpoch:
		return nil, meta, kerr.UnknownLeaderEpoch.Code
	case meta.Leader != b.opts.NodeID:
		return nil, meta, kerr.NotLeaderForPartition.Code
	}
	return part, meta, 0
}
