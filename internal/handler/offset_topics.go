package handler

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/metadata"
)

// offsetTopic resolves a topic of an offset commit: by topic id when the
// version names topics by id (OffsetCommit v10, TxnOffsetCommit v6,
// KIP-848), else by name. As Kafka's KafkaApis, an id the metadata does
// not know is UNKNOWN_TOPIC_ID for each of its partitions, a name
// UNKNOWN_TOPIC_OR_PARTITION, and so is a partition the topic lacks.
func offsetTopic(img *metadata.Image, byID bool, name string, id [16]byte) (*metadata.Topic, int16) {
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

// offsetPartitionCode is the error for partition p of a resolved topic.
func offsetPartitionCode(t *metadata.Topic, p int32) int16 {
	if _, ok := t.Partition(p); !ok {
		return kerr.UnknownTopicOrPartition.Code
	}
	return 0
}
