package txn

import (
	"context"
	"errors"
)

// Durable waits until a write is on disk.
type Durable func(ctx context.Context) error

// Marker is one transaction marker to write: the end of a producer's
// transaction in one partition.
type Marker struct {
	TopicPartition
	ProducerID    int64
	ProducerEpoch int16
	Commit        bool
	// StatePartition is the __transaction_state partition of the
	// transaction; its leader epoch is the coordinator epoch the marker
	// carries.
	StatePartition int32
	// TransactionVersion is the client's transaction version: under 2 the
	// log requires the marker's epoch to be newer than the data's, as
	// Kafka's, since every transaction ends with an epoch bump.
	TransactionVersion int8
}

// MarkerWriter writes transaction markers to the leaders of their
// partitions, as Kafka's coordinator sends WriteTxnMarkers: it answers,
// marker by marker, once each is durable. It is where the coordinator's
// markers leave its state machine; the broker's is LogMarkers, and a
// cluster's would send the requests.
type MarkerWriter interface {
	WriteMarkers(ctx context.Context, markers []Marker) []error
}

// ErrPartitionGone: the marker's partition no longer exists (its topic was
// deleted). The coordinator skips such partitions, as Kafka does.
var ErrPartitionGone = errors.New("txn: partition no longer exists")

// ErrMarkerFenced: the partition has seen a newer epoch of the producer,
// so the marker belongs to a transaction the partition has moved past.
// The coordinator skips it, as Kafka stops sending such markers.
var ErrMarkerFenced = errors.New("txn: marker fenced by a newer producer epoch")
