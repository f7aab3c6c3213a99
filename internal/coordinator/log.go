package coordinator

import "context"

// Batch is what the writer appends in one go: records of one producer.
type Batch struct {
	Producer      Producer
	Transactional bool
	Records       []Record
}

// PartitionLog is one partition of a coordinator's topic, as the runtime
// uses it.
type PartitionLog interface {
	// Append writes b as one record batch and returns the offset of its
	// last record. It must not wait for the disk.
	Append(b Batch) (lastOffset int64, err error)
	// WaitDurable returns once every record up to offset is durable.
	WaitDurable(ctx context.Context, offset int64) error
	// Replay hands every entry of the partition, in order, to fn.
	Replay(fn func(Entry) error) error
}

// Logs opens the partitions of a coordinator's topic.
type Logs interface {
	Open(partition int32) (PartitionLog, error)
}

// BatchLimiter is a PartitionLog that bounds the batches written to it
// (Kafka's runtime asks the partition's max.message.bytes for each new
// batch); MaxBatchBytes answers 0 for no bound of its own, leaving the
// runtime's MaxBatchBytes.
type BatchLimiter interface {
	MaxBatchBytes() int
}

// Pruner is a PartitionLog whose records below an offset can be deleted,
// as Kafka's PartitionWriter.deleteRecords moves a partition's log start
// offset: how the share coordinator keeps __share_group_state (cleanup
// policy delete, no retention) from growing without bound.
type Pruner interface {
	// DeleteRecordsBefore makes offset the log start offset and returns
	// the log start offset after it.
	DeleteRecordsBefore(offset int64) (int64, error)
}
