package group

import (
	"context"
	"errors"
	"fmt"

	"github.com/karst-broker/karst/internal/coordinator"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// OffsetsTopic is the Store the broker uses: the partitions of
// __consumer_offsets, created on first use with Kafka's settings for it.
// Its writes and its replay are the coordinator runtime's (TopicLogs and
// ReplayLog), the ones the transaction coordinator uses for
// __transaction_state.
type OffsetsTopic struct {
	meta *metadata.Store
	logs *coordinator.TopicLogs
}

// NewOffsetsTopic returns the store over the broker's metadata and logs.
func NewOffsetsTopic(meta *metadata.Store, logs *storage.Manager, partitions, segmentBytes int32) *OffsetsTopic {
	if partitions <= 0 {
		partitions = DefaultConfig().OffsetsTopicPartitions
	}
	return &OffsetsTopic{meta: meta, logs: coordinator.NewTopicLogs(meta, logs, coordinator.TopicSpec{
		Name: metadata.ConsumerOffsetsTopic, Partitions: partitions, Compression: "producer", SegmentBytes: segmentBytes})}
}

// Ensure creates __consumer_offsets if it does not exist.
func (o *OffsetsTopic) Ensure() error { return o.logs.Ensure() }

// Append writes records to the group's partition as one batch.
func (o *OffsetsTopic) Append(groupID string, recs []Record) (Durable, error) {
	return o.append(groupID, coordinator.Batch{Producer: coordinator.NoProducer, Records: recs})
}

// AppendTxn writes a producer's transactional records to the group's
// partition as one transactional batch (TxnStore). The log refuses it
// with ErrInvalidProducerEpoch when the producer's epoch is older than
// the last it saw in the partition.
func (o *OffsetsTopic) AppendTxn(groupID string, producerID int64, producerEpoch int16, recs []Record) (Durable, error) {
	return o.append(groupID, coordinator.Batch{Producer: coordinator.Producer{ID: producerID, Epoch: producerEpoch},
		Transactional: true, Records: recs})
}

func (o *OffsetsTopic) append(groupID string, b coordinator.Batch) (Durable, error) {
	if err := o.Ensure(); err != nil {
		return nil, err
	}
	n := o.logs.Partitions()
	if n == 0 {
		return nil, errors.New("group: __consumer_offsets vanished")
	}
	part, err := o.logs.Open(PartitionFor(groupID, n))
	if err != nil {
		return nil, fmt.Errorf("group: %w", err)
	}
	last, err := part.Append(b)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return part.WaitDurable(ctx, last) }, nil
}

// Replay calls fn with every record of every partition, in log order,
// with its batch's producer; a transaction marker comes as a record of
// its own. A partition that cannot be read to its end, or whose log is
// not open, is a PartitionLoadError and the others are read on.
func (o *OffsetsTopic) Replay(fn func(StoredRecord) error) error {
	n := o.logs.Partitions()
	var errs []error
	for p := int32(0); p < n; p++ {
		if err := o.replayPartition(p, n, fn); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Partition replays one partition's records, for LoadPartition.
func (o *OffsetsTopic) Partition(partition int32) Replayer {
	return replayFunc(func(fn func(StoredRecord) error) error {
		n := o.logs.Partitions()
		if n == 0 {
			return nil
		}
		return o.replayPartition(partition, n, fn)
	})
}

func (o *OffsetsTopic) replayPartition(partition, partitions int32, fn func(StoredRecord) error) error {
	part, err := o.logs.Open(partition)
	if err == nil {
		err = part.Replay(func(e coordinator.Entry) error {
			return fn(StoredRecord{Key: e.Key, Value: e.Value, Partition: partition, ProducerID: e.Producer.ID,
				ProducerEpoch: e.Producer.Epoch, Transactional: e.Transactional, Marker: e.Marker, Commit: e.Commit})
		})
		if err != nil {
			err = fmt.Errorf("%s-%d: %w", metadata.ConsumerOffsetsTopic, partition, err)
		}
	}
	if err != nil {
		return &PartitionLoadError{Partition: partition, Partitions: partitions, Err: err}
	}
	return nil
}

// replayFunc is a Replayer made of a function.
type replayFunc func(fn func(StoredRecord) error) error

func (f replayFunc) Replay(fn func(StoredRecord) error) error { return f(fn) }
