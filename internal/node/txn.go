package node

import (
	"fmt"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/txn"
)

// startTxnCoordinator creates the transaction coordinator over
// __transaction_state and the partition logs, and loads every partition
// of it; transactions found prepared are completed in the background and
// open ones aborted at their timeout (the coordinator's timers).
func (n *Node) startTxnCoordinator(settings *config.Broker, pids *txn.ProducerIDs, groups *group.Coordinator) (*txn.Coordinator, error) {
	cfg := txn.ConfigFrom(settings)
	c := txn.New(cfg, txn.Options{
		Logs:            txn.NewStateLogs(n.store, n.storage, n.logConfigs),
		Markers:         txn.NewLogMarkers(n.store, n.storage),
		ProducerIDs:     pids,
		CompleteOffsets: groups.CompleteTransaction,
		Logger:          n.levels.Logger(loggerTxn),
	})
	n.txns.Store(c)
	skipped, err := c.Load()
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", metadata.TransactionStateTopic, err)
	}
	if skipped > 0 {
		n.logger.Warn("skipped malformed records while loading transaction state", "records", skipped)
	}
	return c, nil
}
