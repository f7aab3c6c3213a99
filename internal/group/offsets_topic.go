package group

import (
	"context"
	"errors"
	"fmt"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// OffsetsTopic is the Store the broker uses: the partitions of
// __consumer_offsets, created on first use with Kafka's settings for it.
// It is the only part of this package that does I/O.
type OffsetsTopic struct {
	meta        *metadata.Store
	logs        *storage.Manager
	partitions  int32 // offsets.topic.num.partitions
	segmentSize int32 // offsets.topic.segment.bytes
	now         func() time.Time
}

// NewOffsetsTopic returns the store over the broker's metadata and logs.
func NewOffsetsTopic(meta *metadata.Store, logs *storage.Manager, partitions, segmentBytes int32) *OffsetsTopic {
	if partitions <= 0 {
		partitions = DefaultConfig().OffsetsTopicPartitions
	}
	return &OffsetsTopic{meta: meta, logs: logs, partitions: partitions, segmentSize: segmentBytes, now: time.Now}
}

// Ensure creates __consumer_offsets if it does not exist.
func (o *OffsetsTopic) Ensure() error {
	return o.meta.EnsureInternalTopic(metadata.ConsumerOffsetsTopic, o.partitions, "producer", o.segmentSize)
}

// Append writes records to the group's partition as one batch.
func (o *OffsetsTopic) Append(groupID string, recs []Record) (Durable, error) {
	return o.append(groupID, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, recs)
}

// AppendTxn writes a producer's transactional records to the group's
// partition as one transactional batch (TxnStore). The log refuses it
// with ErrInvalidProducerEpoch when the producer's epoch is older than
// the last it saw in the partition.
func (o *OffsetsTopic) AppendTxn(groupID string, producerID int64, producerEpoch int16, recs []Record) (Durable, error) {
	return o.append(groupID, record.BatchHeader{Attributes: record.TransactionalBit,
		ProducerID: producerID, ProducerEpoch: producerEpoch, BaseSequence: -1}, recs)
}

func (o *OffsetsTopic) append(groupID string, h record.BatchHeader, recs []Record) (Durable, error) {
	if err := o.Ensure(); err != nil {
		return nil, err
	}
	t, ok := o.meta.Image().Topic(metadata.ConsumerOffsetsTopic)
	if !ok {
		return nil, errors.New("group: __consumer_offsets vanished")
	}
	p := PartitionFor(groupID, int32(len(t.Partitions)))
	meta, ok := t.Partition(p)
	part, open := o.logs.Get(metadata.ConsumerOffsetsTopic, p)
	if !ok || !open {
		return nil, fmt.Errorf("group: %s-%d is not open", metadata.ConsumerOffsetsTopic, p)
	}
	rs := make([]record.Record, len(recs))
	for i, r := range recs {
		rs[i] = record.Record{Key: r.Key, Value: r.Value}
	}
	h.BaseTimestamp = o.now().UnixMilli()
	batch, err := record.Build(nil, h, rs)
	if err != nil {
		return nil, err
	}
	res, err := part.Log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: meta.LeaderEpoch})
	if err != nil {
		return nil, err
	}
	l, last := part.Log, res.LastOffset
	return func(ctx context.Context) error { return l.WaitDurable(ctx, last) }, nil
}

// loadChunk is how much of a partition is read at a time on load
// (offsets.load.buffer.size).
const loadChunk = 5 << 20

// Replay calls fn with every record of every partition, in log order,
// with its batch's producer; a transaction marker comes as a record of
// its own. Other control batches are skipped. A partition that cannot be
// read to its end, or whose log is not open, is a PartitionLoadError and
// the others are read on.
func (o *OffsetsTopic) Replay(fn func(StoredRecord) error) error {
	var buf []byte
	return ReplayTopic(o.meta, o.logs, metadata.ConsumerOffsetsTopic, func(l *klog.Log, partition int32) (err error) {
		buf, err = replayLog(l, partition, buf, fn)
		return err
	})
}

// ReplayTopic runs replay over each partition of a coordinator's topic
// (none if it does not exist). A partition that cannot be read to its
// end, or whose log is not open, is a PartitionLoadError, and the others
// are read on.
func ReplayTopic(meta *metadata.Store, logs *storage.Manager, topic string, replay func(l *klog.Log, partition int32) error) error {
	t, ok := meta.Image().Topic(topic)
	if !ok {
		return nil
	}
	var errs []error
	for _, pm := range t.Partitions {
		err := errors.New("the log is not open")
		if part, open := logs.Get(topic, pm.ID); open {
			err = replay(part.Log, pm.ID)
		}
		if err != nil {
			errs = append(errs, &PartitionLoadError{Partition: pm.ID, Partitions: int32(len(t.Partitions)),
				Err: fmt.Errorf("%s-%d: %w", topic, pm.ID, err)})
		}
	}
	return errors.Join(errs...)
}

func replayLog(l *klog.Log, partition int32, buf []byte, fn func(StoredRecord) error) ([]byte, error) {
	offset := l.LogStartOffset()
	for offset < l.HighWatermark() {
		data, _, err := l.ReadBytes(buf, offset, loadChunk, true)
		if err != nil {
			return buf, err
		}
		buf = data
		if len(data) == 0 {
			return buf, nil
		}
		s := record.NewSplitter(data, 0)
		next := offset
		for {
			b, err := s.Next()
			if err != nil {
				if errors.Is(err, record.ErrTruncated) && next > offset {
					break // the read ended inside a batch; read on from it
				}
				return buf, err
			}
			if b == nil {
				break
			}
			next = b.NextOffset()
			if err := replayBatch(b, partition, fn); err != nil {
				return buf, err
			}
		}
		if next <= offset {
			return buf, nil
		}
		offset = next
	}
	return buf, nil
}

// replayBatch hands one batch's records, or its marker, to fn.
func replayBatch(b record.Batch, partition int32, fn func(StoredRecord) error) error {
	sr := StoredRecord{Partition: partition, ProducerID: b.ProducerID(), ProducerEpoch: b.ProducerEpoch(),
		Transactional: b.IsTransactional()}
	if b.IsControl() {
		m, err := record.ParseMarker(b)
		if err != nil {
			return nil // not a transaction marker: nothing for groups
		}
		sr.Marker, sr.Commit = true, m.Type == record.ControlCommit
		return fn(sr)
	}
	return b.ForEachRecord(loadChunk*4, func(r *record.Record) error {
		sr.Key, sr.Value = r.Key, r.Value
		return fn(sr)
	})
}

// Partition replays one partition's records, for LoadPartition.
func (o *OffsetsTopic) Partition(partition int32) Replayer {
	return replayFunc(func(fn func(StoredRecord) error) error {
		t, ok := o.meta.Image().Topic(metadata.ConsumerOffsetsTopic)
		if !ok {
			return nil
		}
		part, open := o.logs.Get(metadata.ConsumerOffsetsTopic, partition)
		if !open {
			return &PartitionLoadError{Partition: partition, Partitions: int32(len(t.Partitions)),
				Err: fmt.Errorf("%s-%d: the log is not open", metadata.ConsumerOffsetsTopic, partition)}
		}
		_, err := replayLog(part.Log, partition, nil, fn)
		return err
	})
}

// replayFunc is a Replayer made of a function.
type replayFunc func(fn func(StoredRecord) error) error

func (f replayFunc) Replay(fn func(StoredRecord) error) error { return f(fn) }
