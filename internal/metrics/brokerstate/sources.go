package brokerstate

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// Groups is what the lag gauges read from the group coordinator
// (*group.Coordinator).
type Groups interface {
	List(states, types []string) []group.Listing
	FetchOffsets(groupID string, partitions []group.TopicPartition) (*kerr.Error, []group.FetchedOffset)
}

// Partitions is the set of open partition logs (*storage.Manager).
type Partitions interface {
	Get(topic string, partition int32) (*storage.Partition, bool)
	All() []*storage.Partition
}

// Metadata supplies the current metadata image (*metadata.Store).
type Metadata interface {
	Image() *metadata.Image
}

// Sources are where the gauges come from; a nil source leaves its gauges
// out.
type Sources struct {
	// NodeID is this broker, to tell the partitions it leads.
	NodeID     int32
	Groups     Groups
	Partitions Partitions
	Metadata   Metadata
	Cleaner    Cleaner // nil: log.cleaner.enable=false, no cleaner gauges (as Kafka)
}

// The broker's own types are the sources.
var (
	_ Groups         = (*group.Coordinator)(nil)
	_ GroupDescriber = (*group.Coordinator)(nil)
	_ Partitions     = (*storage.Manager)(nil)
	_ Metadata       = (*metadata.Store)(nil)
)
