package handler

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// leaderPartition finds a partition this node leads and checks the
// client's view of its leader epoch (KIP-320): an older epoch is fenced, a
// newer one is unknown here; -1 skips the check. A partition whose log dir
// failed is KAFKA_STORAGE_ERROR.
func (b *Broker) leaderPartition(topic *metadata.Topic, partition, currentLeaderEpoch int32) (*storage.Partition, *metadata.Partition, int16) {
	meta, found := topic.Partition(partition)
	part, open := b.opts.Storage.Get(topic.Name, partition)
	switch {
	case found && b.opts.Storage.Offline(topic.Name, partition):
		// Its log dir failed: Kafka's ReplicaManager answers every
		// request for an offline partition so.
		return nil, nil, kerr.KafkaStorageError.Code
	case !found || !open:
		return nil, nil, kerr.UnknownTopicOrPartition.Code
	case meta.Leader != b.opts.NodeID:
		// Leaderless (this node unregistered, or no replica may lead).
		return nil, nil, kerr.NotLeaderForPartition.Code
	case currentLeaderEpoch >= 0 && currentLeaderEpoch < meta.LeaderEpoch:
		return nil, nil, kerr.FencedLeaderEpoch.Code
	case currentLeaderEpoch > meta.LeaderEpoch:
		return nil, nil, kerr.UnknownLeaderEpoch.Code
	}
	return part, meta, 0
}
