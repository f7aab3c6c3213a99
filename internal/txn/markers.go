package txn

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

// WriteMarkers appends each marker to its partition and waits until they
// are all durable.
func (w *LogMarkers) WriteMarkers(ctx context.Context, markers []Marker) []error {
	errs := make([]error, len(markers))
	waits := make([]Durable, len(markers))
	for i, m := range markers {
		waits[i], errs[i] = w.writeMarker(m)
	}
	for i, d := range waits {
		if errs[i] == nil {
			errs[i] = d(ctx)
		}
	}
	return errs
}

// writeMarker appends m's control batch to its partition, stamped with
// the partition's leader epoch as a produce is; its coordinator epoch is
// the leader epoch of the transaction's __transaction_state partition.
// A partition whose topic is gone is ErrPartitionGone.
func (w *LogMarkers) writeMarker(m Marker) (Durable, error) {
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
