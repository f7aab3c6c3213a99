package handler

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/record"
)

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
