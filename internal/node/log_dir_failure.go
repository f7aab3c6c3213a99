package node

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
)

// failureShutdownGrace bounds the shutdown after the log dir failed: the
// in-flight requests it waits for fail fast, as their logs are offline.
const failureShutdownGrace = 30 * time.Second

// watchLogDirFailures is Kafka's LogDirFailureHandler: each log dir the
// logs report failed is taken offline with its partitions while the other
// dirs keep serving; when no dir is left, or the dir of the metadata log
// failed, the broker logs why and shuts down (listeners closed, logs
// closed, no clean-shutdown marker), and Failed is closed so the process
// exits non-zero.
func (n *Node) watchLogDirFailures(ctx context.Context, failures *klog.LogDirFailureChannel) {
	for {
		var f klog.LogDirFailure
		select {
		case <-ctx.Done():
			return
		case f = <-failures.Failures():
		}
		fatal := n.takeLogDirOffline(f)
		if fatal == "" {
			continue
		}
		n.logger.Error(fatal, "failed_dir", f.Dir, "err", f.Err)
		n.failure = fmt.Errorf("log dir %s failed: %w", f.Dir, f.Err)
		sctx, cancel := context.WithTimeout(context.Background(), failureShutdownGrace)
		if err := n.Shutdown(sctx); err != nil {
			n.logger.Warn("closing the logs of the failed log dir", "err", err)
		}
		cancel()
		close(n.failed)
		return
	}
}

// takeLogDirOffline stops serving the failed dir, as Kafka's
// ReplicaManager.handleLogDirFailure, and returns Kafka's reason to shut
// the broker down, or "" when it keeps serving from the other dirs.
func (n *Node) takeLogDirOffline(f klog.LogDirFailure) (fatal string) {
	n.logger.Warn(fmt.Sprintf("Stopping serving replicas in dir %s because the log directory has failed.", f.Dir), "err", f.Err)
	if n.storage.TakeDirOffline(f.Dir, f.Err) {
		return fmt.Sprintf("Shutdown broker because all log dirs in %s have failed", strings.Join(n.dataDirs, ", "))
	}
	if filepath.Clean(f.Dir) == filepath.Clean(n.dataDir) {
		return fmt.Sprintf("Shutdown broker because the metadata log dir %s has failed", f.Dir)
	}
	n.recordLogDirsOffline()
	return ""
}

// recordLogDirsOffline writes what Kafka's controller writes when the
// broker reports failed dirs (handleDirectoriesOffline): the dirs left in
// the broker's registration, and its partitions in the failed ones without
// a leader, so that a restart, or Kafka reading the data dir, sees them
// offline until the dir is back.
func (n *Node) recordLogDirsOffline() {
	if n.store == nil {
		return // at start, before the metadata is open: the activation records it
	}
	online := n.onlineDirIDs()
	recs := n.store.Image().LogDirsOffline(n.nodeID, online)
	if len(recs) == 0 {
		return
	}
	if err := n.store.Commit(recs); err != nil {
		n.logger.Error("recording the failed log dirs in the metadata", "err", err)
		return
	}
	n.logger.Warn(fmt.Sprintf("Directories in broker %d marked offline, remaining directories: %v", n.nodeID, online),
		"records", len(recs))
}

// failedAtStart handles the log dirs that failed while the broker opened
// them (an unreadable checkpoint, a partition log that would not open) as
// the same failure at run time is handled: each is taken offline, and
// when that leaves the broker nothing to serve from it logs Kafka's
// reason and Start fails with it.
func (n *Node) failedAtStart() error {
	if n.storage == nil {
		return nil
	}
	for {
		select {
		case f := <-n.dirFailures.Failures():
			if fatal := n.takeLogDirOffline(f); fatal != "" {
				n.logger.Error(fatal, "failed_dir", f.Dir, "err", f.Err)
				return fmt.Errorf("%s: %w", fatal, f.Err)
			}
		default:
			return nil
		}
	}
}

// Failed is closed once the broker has shut itself down because its log
// dirs failed; Failure then says why.
func (n *Node) Failed() <-chan struct{} { return n.failed }

// Failure is the log dir failure that stopped the broker, or nil.
func (n *Node) Failure() error {
	select {
	case <-n.failed:
		return n.failure
	default:
		return nil
	}
}
