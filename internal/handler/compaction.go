package handler

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
)

// compacted reports whether a topic's effective cleanup.policy includes
// "compact": its own override, else the broker's log.cleanup.policy
// (this node's dynamic value, the cluster default, then the static one).
func (b *Broker) compacted(img *metadata.Image, topic string) bool {
	return strings.Contains(b.topicSetting(img, topic, "cleanup.policy"), "compact")
}

// producePathTopicConfigs are the topic configs Produce resolves itself,
// by their broker keys: the topic's override, else the broker's.
var producePathTopicConfigs = map[string]string{
	"cleanup.policy":   "log.cleanup.policy",
	"compression.type": "compression.type",
}

// topicSetting resolves one of producePathTopicConfigs for a topic as
// Kafka does: the topic's override, else this node's dynamic broker
// config, else the cluster-wide dynamic default, else the static config.
func (b *Broker) topicSetting(img *metadata.Image, topic, topicKey string) string {
	if v, ok := img.TopicConfigs(topic)[topicKey]; ok {
		return v
	}
	brokerKey := producePathTopicConfigs[topicKey]
	for _, layer := range []map[string]string{img.BrokerConfigs(b.nodeIDString()), img.BrokerConfigs("")} {
		if v, ok := layer[brokerKey]; ok {
			return v
		}
	}
	return b.staticTopicDefaults[brokerKey]
}

// keylessRecordErrors checks that every record of the batches has a key,
// as a compacted topic requires; it returns Kafka's per-record errors
// (the record's index in its batch) and a message, or nil when all do.
func keylessRecordErrors(batches []byte, topic string, partition int32) ([]kmsg.ProduceResponseTopicPartitionErrorRecord, *string, int16) {
	var errs []kmsg.ProduceResponseTopicPartitionErrorRecord
	sp := record.NewSplitter(batches, 0)
	for {
		batch, err := sp.Next()
		if err != nil {
			msg := err.Error()
			return nil, &msg, kerr.CorruptMessage.Code
		}
		if batch == nil {
			break
		}
		index := int32(0)
		err = batch.ForEachRecord(record.DefaultMaxDecompressed, func(r *record.Record) error {
			if r.Key == nil {
				e := kmsg.NewProduceResponseTopicPartitionErrorRecord()
				e.RelativeOffset = index
				msg := fmt.Sprintf("Compacted topic cannot accept message without key in topic partition %s-%d.", topic, partition)
				e.ErrorMessage = &msg
				errs = append(errs, e)
			}
			index++
			return nil
		})
		if err != nil {
			msg := err.Error()
			return nil, &msg, kerr.CorruptMessage.Code
		}
	}
	if len(errs) == 0 {
		return nil, nil, 0
	}
	msg := fmt.Sprintf("One or more records have been rejected due to %d record errors in total, and only showing the first %d in the list", len(errs), len(errs))
	return errs, &msg, kerr.InvalidRecord.Code
}
