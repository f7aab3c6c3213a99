package txn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/group"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// StateTopic is the Store the broker uses: the partitions of
// __transaction_state, created on first use with Kafka's settings for it
// (compacted, uncompressed). With LogMarkers it is the only part of this
// package that does I/O.
type StateTopic struct {
	meta        *metadata.Store
	logs        *storage.Manager
	partitions  int32 // transaction.state.log.num.partitions
	segmentSize int32 // transaction.state.log.segment.bytes
	now         func() time.Time

	mu sync.Mutex
	// loaded is the id of the topic the coordinator's state was read
	// from (zero before it exists): a write to a topic of the same name
	// created since (the old one was deleted) would mix stale state into
	// it, so it is refused until the coordinator has unloaded (Forget).
	loaded metadata.UUID
}

// ErrStateTopicReplaced refuses a write to a __transaction_state that is
// not the one the coordinator's state was loaded from.
var ErrStateTopicReplaced = errors.New("txn: __transaction_state was deleted since the coordinator loaded it")

// NewStateTopic returns the store over the broker's metadata and logs.
func NewStateTopic(meta *metadata.Store, logs *storage.Manager, partitions, segmentBytes int32) *StateTopic {
	if partitions <= 0 {
		partitions = DefaultConfig().StatePartitions
	}
	return &StateTopic{meta: meta, logs: logs, partitions: partitions, segmentSize: segmentBytes, now: time.Now}
}

// Ensure creates __transaction_state if it does not exist.
func (s *StateTopic) Ensure() error {
	return s.meta.EnsureInternalTopic(metadata.TransactionStateTopic, s.partitions, "uncompressed", s.segmentSize)
}

// Append writes records to the transactional id's partition as one batch.
func (s *StateTopic) Append(transactionalID string, recs []Record) (Durable, error) {
	if err := s.Ensure(); err != nil {
		return nil, err
	}
	t, ok := s.meta.Image().Topic(metadata.TransactionStateTopic)
	if !ok {
		return nil, errors.New("txn: __transaction_state vanished")
	}
	if !s.adopt(t.ID) {
		return nil, ErrStateTopicReplaced
	}
	p := group.PartitionFor(transactionalID, int32(len(t.Partitions)))
	meta, ok := t.Partition(p)
	part, open := s.logs.Get(metadata.TransactionStateTopic, p)
	if !ok || !open {
		return nil, fmt.Errorf("txn: %s-%d is not open", metadata.TransactionStateTopic, p)
	}
	rs := make([]record.Record, len(recs))
	for i, r := range recs {
		rs[i] = record.Record{Key: r.Key, Value: r.Value}
	}
	batch, err := record.Build(nil, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		BaseTimestamp: s.now().UnixMilli()}, rs)
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

// adopt reports whether id is the topic the state was loaded from, taking
// it as that topic when there was none.
func (s *StateTopic) adopt(id metadata.UUID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded == (metadata.UUID{}) {
		s.loaded = id
	}
	return s.loaded == id
}

// Forget drops the loaded topic's id once the coordinator has unloaded
// its state, so that writes go to whichever topic exists next.
func (s *StateTopic) Forget() {
	s.mu.Lock()
	s.loaded = metadata.UUID{}
	s.mu.Unlock()
}

// loadChunk is transaction.state.log.load.buffer.size's default: how
// much of a partition is read at a time on load.
const loadChunk = 5 << 20

// Replay calls fn with every record of every partition, in log order.
// Control batches are skipped. A partition that cannot be read is a
// group.PartitionLoadError; the others are read on.
func (s *StateTopic) Replay(fn func(Record) error) error {
	if t, ok := s.meta.Image().Topic(metadata.TransactionStateTopic); ok {
		s.adopt(t.ID)
	}
	var buf []byte
	return group.ReplayTopic(s.meta, s.logs, metadata.TransactionStateTopic, func(l *klog.Log, _ int32) (err error) {
		buf, err = replayLog(l, buf, fn)
		return err
	})
}

func replayLog(l *klog.Log, buf []byte, fn func(Record) error) ([]byte, error) {
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
		sp := record.NewSplitter(data, 0)
		next := offset
		for {
			b, err := sp.Next()
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
			if b.IsControl() {
				continue
			}
			if err := b.ForEachRecord(loadChunk*4, func(r *record.Record) error {
				return fn(Record{Key: r.Key, Value: r.Value})
			}); err != nil {
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

// LogMarkers writes transaction markers into the broker's partition logs
// (the MarkerWriter the broker uses).
type LogMarkers struct {
	meta *metadata.Store
	logs *storage.Manager
	now  func() time.Time
}

// NewLogMarkers returns the marker writer over the broker's metadata and
// logs.
func NewLogMarkers(meta *metadata.Store, logs *storage.Manager) *LogMarkers {
	return &LogMarkers{meta: meta, logs: logs, now: time.Now}
}

// WriteMarker appends m's control batch to its partition, stamped with
// the partition's leader epoch as a produce is; its coordinator epoch is
// the leader epoch of the transaction's __transaction_state partition.
// A partition whose topic is gone is ErrPartitionGone.
func (w *LogMarkers) WriteMarker(m Marker) (Durable, error) {
	img := w.meta.Image()
	t, ok := img.Topic(m.Topic)
	if !ok {
		return nil, ErrPartitionGone
	}
	pm, ok := t.Partition(m.Partition)
	if !ok {
		return nil, ErrPartitionGone
	}
	part, open := w.logs.Get(m.Topic, m.Partition)
	if !open {
		return nil, fmt.Errorf("txn: %s-%d is not open", m.Topic, m.Partition)
	}
	coordinatorEpoch := int32(0)
	if st, ok := img.Topic(metadata.TransactionStateTopic); ok {
		if sp, ok := st.Partition(m.StatePartition); ok {
			coordinatorEpoch = sp.LeaderEpoch
		}
	}
	typ := record.ControlAbort
	if m.Commit {
		typ = record.ControlCommit
	}
	batch := record.BuildMarker(nil, record.Marker{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
		CoordinatorEpoch: coordinatorEpoch, Type: typ, Timestamp: w.now().UnixMilli()})
	res, err := part.Log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: pm.LeaderEpoch, TransactionVersion: m.TransactionVersion})
	if errors.Is(err, klog.ErrInvalidProducerEpoch) {
		return nil, fmt.Errorf("%w: %w", ErrMarkerFenced, err)
	}
	if err != nil {
		return nil, err
	}
	l, last := part.Log, res.LastOffset
	return func(ctx context.Context) error { return l.WaitDurable(ctx, last) }, nil
}
