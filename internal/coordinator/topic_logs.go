package coordinator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// TopicSpec is a coordinator's internal topic, created on first use with
// Kafka's settings for it (compacted).
type TopicSpec struct {
	Name        string
	Compression string
	// Configs, when set, resolve the topic's settings, as Kafka's
	// coordinators read them: the partition count and segment size it is
	// created with are the broker settings PartitionsKey and
	// SegmentBytesKey (e.g. transaction.state.log.num.partitions), and
	// each batch the writer builds is bounded by the topic's
	// max.message.bytes, its own override over the broker's. Without
	// Configs, Partitions and SegmentBytes are used, and batches are bounded
	// by the runtime's MaxBatchBytes.
	Configs                        *config.LogConfigs
	PartitionsKey, SegmentBytesKey string
	Partitions                     int32
	SegmentBytes                   int32
	// TopicConfigs replace or add to the compacted topic's configs at
	// creation.
	TopicConfigs map[string]string
}

// creation is the partition count and segment size the topic is created
// with.
func (s TopicSpec) creation(dyn config.DynamicConfigs) (partitions, segmentBytes int32) {
	if s.Configs == nil {
		return s.Partitions, s.SegmentBytes
	}
	b := s.Configs.Broker(dyn)
	return b.Int(s.PartitionsKey), b.Int(s.SegmentBytesKey)
}

// TopicLogs are the partitions of an internal topic in the broker's
// logs: the Logs the broker's coordinators use. It is the only part of
// this package that does I/O.
type TopicLogs struct {
	meta *metadata.Store
	logs *storage.Manager
	spec TopicSpec
	now  func() time.Time
}

// ErrTopicReplaced refuses a write to a partition of a topic created
// since the shard was loaded (the one it was loaded from was deleted).
var ErrTopicReplaced = errors.New("coordinator: the topic was deleted since the partition was loaded")

// NewTopicLogs returns the partitions of spec's topic.
func NewTopicLogs(meta *metadata.Store, logs *storage.Manager, spec TopicSpec) *TopicLogs {
	return &TopicLogs{meta: meta, logs: logs, spec: spec, now: time.Now}
}

// Ensure creates the topic if it does not exist.
func (t *TopicLogs) Ensure() error {
	partitions, segmentBytes := t.spec.creation(t.meta.Image())
	return t.meta.EnsureInternalTopicWith(t.spec.Name, partitions, t.spec.Compression, segmentBytes, t.spec.TopicConfigs)
}

// Partitions is the topic's partition count, 0 while it does not exist.
func (t *TopicLogs) Partitions() int32 {
	topic, ok := t.meta.Image().Topic(t.spec.Name)
	if !ok {
		return 0
	}
	return int32(len(topic.Partitions))
}

// Open returns partition's log, bound to the topic as it is now.
func (t *TopicLogs) Open(partition int32) (PartitionLog, error) {
	topic, ok := t.meta.Image().Topic(t.spec.Name)
	if !ok {
		return nil, fmt.Errorf("%s does not exist", t.spec.Name)
	}
	if _, ok := topic.Partition(partition); !ok {
		return nil, fmt.Errorf("%s-%d does not exist", t.spec.Name, partition)
	}
	part, open := t.logs.Get(t.spec.Name, partition)
	if !open {
		return nil, fmt.Errorf("%s-%d: the log is not open", t.spec.Name, partition)
	}
	name, id := t.spec.Name, topic.ID
	pl := &partitionLog{log: part.Log, now: t.now, leaderEpoch: func() (int32, error) {
		topic, ok := t.meta.Image().Topic(name)
		if !ok || topic.ID != id {
			return 0, ErrTopicReplaced
		}
		pm, ok := topic.Partition(partition)
		if !ok {
			return 0, ErrTopicReplaced
		}
		return pm.LeaderEpoch, nil
	}}
	if t.spec.Configs != nil {
		configs := t.spec.Configs
		pl.maxBatchBytes = func() int { return int(configs.Topic(t.meta.Image(), name).MaxMessageBytes) }
	}
	return pl, nil
}

// NewPartitionLog is a PartitionLog over a partition's log; leaderEpoch
// says, at each append, the epoch to stamp, or why the partition may no
// longer be written.
func NewPartitionLog(l *klog.Log, now func() time.Time, leaderEpoch func() (int32, error)) PartitionLog {
	return &partitionLog{log: l, now: now, leaderEpoch: leaderEpoch}
}

type partitionLog struct {
	log         *klog.Log
	now         func() time.Time
	leaderEpoch func() (int32, error)
	// maxBatchBytes, when set, is the topic's max.message.bytes.
	maxBatchBytes func() int
}

// MaxBatchBytes is the topic's max.message.bytes, or 0 when the log was
// opened without its configuration.
func (p *partitionLog) MaxBatchBytes() int {
	if p.maxBatchBytes == nil {
		return 0
	}
	return p.maxBatchBytes()
}

// Append builds b as one batch, stamped with the partition's leader epoch.
func (p *partitionLog) Append(b Batch) (int64, error) {
	epoch, err := p.leaderEpoch()
	if err != nil {
		return -1, err
	}
	rs := make([]record.Record, len(b.Records))
	for i, r := range b.Records {
		rs[i] = record.Record{Key: r.Key, Value: r.Value}
	}
	h := record.BatchHeader{ProducerID: b.Producer.ID, ProducerEpoch: b.Producer.Epoch, BaseSequence: -1,
		BaseTimestamp: p.now().UnixMilli()}
	if b.Transactional {
		h.Attributes = record.TransactionalBit
	}
	batch, err := record.Build(nil, h, rs)
	if err != nil {
		return -1, err
	}
	res, err := p.log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: epoch})
	if err != nil {
		return -1, err
	}
	return res.LastOffset, nil
}

// DeleteRecordsBefore moves the log start offset to offset, deleting the
// segments wholly below it.
func (p *partitionLog) DeleteRecordsBefore(offset int64) (int64, error) {
	return p.log.DeleteRecords(offset)
}

func (p *partitionLog) WaitDurable(ctx context.Context, offset int64) error {
	return p.log.WaitDurable(ctx, offset)
}

// Replay reads the partition from its start to its high watermark.
func (p *partitionLog) Replay(fn func(Entry) error) error {
	return ReplayLog(p.log, fn)
}

// loadChunk is Kafka's *.load.buffer.size default: how much of a
// partition is read at a time on load.
const loadChunk = 5 << 20

// ReplayLog hands every record of l, and every transaction marker, to fn
// in log order; other control batches are skipped.
func ReplayLog(l *klog.Log, fn func(Entry) error) error {
	var buf []byte
	offset := l.LogStartOffset()
	for offset < l.HighWatermark() {
		data, _, err := l.ReadBytes(buf, offset, loadChunk, true)
		if err != nil {
			return err
		}
		buf = data
		if len(data) == 0 {
			return nil
		}
		sp := record.NewSplitter(data, 0)
		next := offset
		for {
			b, err := sp.Next()
			if err != nil {
				if errors.Is(err, record.ErrTruncated) && next > offset {
					break // the read ended inside a batch; read on from it
				}
				return err
			}
			if b == nil {
				break
			}
			next = b.NextOffset()
			if err := replayBatch(b, fn); err != nil {
				return err
			}
		}
		if next <= offset {
			return nil
		}
		offset = next
	}
	return nil
}

func replayBatch(b record.Batch, fn func(Entry) error) error {
	e := Entry{Producer: Producer{ID: b.ProducerID(), Epoch: b.ProducerEpoch()}, Transactional: b.IsTransactional()}
	if b.IsControl() {
		m, err := record.ParseMarker(b)
		if err != nil {
			return nil // not a transaction marker: nothing for a coordinator
		}
		e.Marker, e.Commit, e.Offset = true, m.Type == record.ControlCommit, b.BaseOffset()
		return fn(e)
	}
	offset := b.BaseOffset()
	return b.ForEachRecord(loadChunk*4, func(r *record.Record) error {
		e.Key, e.Value, e.Offset = r.Key, r.Value, offset+int64(r.OffsetDelta)
		return fn(e)
	})
}
