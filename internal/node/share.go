package node

import (
	"fmt"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/share"
)

// startShareCoordinator creates the share coordinator over
// __share_group_state, loading it when it exists (the topic is created at
// the first share fetch otherwise), and the share-partition manager that
// ShareFetch and ShareAcknowledge use.
func (n *Node) startShareCoordinator(settings *config.Broker) (*share.Coordinator, *share.Manager, error) {
	opts := share.CoordinatorOptions{Logs: share.NewStateLogs(n.store, n.storage, n.logConfigs), UpdatesPerSnapshot: share.DefaultUpdatesPerSnapshot,
		PruneInterval: share.DefaultPruneInterval, ColdSnapshotInterval: share.DefaultColdSnapshotInterval, Logger: n.levels.Logger(loggerShare)}
	sessions := 0
	if settings != nil {
		opts.Partitions = settings.Int("share.coordinator.state.topic.num.partitions")
		opts.UpdatesPerSnapshot = int(settings.Int("share.coordinator.snapshot.update.records.per.snapshot"))
		opts.PruneInterval = time.Duration(settings.Int("share.coordinator.state.topic.prune.interval.ms")) * time.Millisecond
		opts.ColdSnapshotInterval = time.Duration(settings.Int("share.coordinator.cold.partition.snapshot.interval.ms")) * time.Millisecond
		sessions = int(settings.Int("group.share.max.share.sessions"))
	}
	c := share.NewCoordinator(opts)
	if logs, ok := opts.Logs.(interface{ Partitions() int32 }); ok && logs.Partitions() > 0 {
		if err := c.Load(); err != nil {
			return nil, nil, fmt.Errorf("loading __share_group_state: %w", err)
		}
	}
	logger := n.levels.Logger(loggerShare)
	m := share.NewManager(c, nil, sessions, func(k share.Key, err error) {
		logger.Warn("writing the release of expired acquisition locks", "group", k.Group, "partition", k.Partition, "err", err)
	})
	return c, m, nil
}
