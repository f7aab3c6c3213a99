package node

import (
	"context"
	"fmt"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
)

// failureShutdownGrace bounds the shutdown after the log dir failed: the
// in-flight requests it waits for fail fast, as their logs are offline.
const failureShutdownGrace = 30 * time.Second

// watchLogDirFailures is Kafka's LogDirFailureHandler for a broker with one
// log dir: when the logs report it failed, every partition in it is offline
// and there is no other dir to serve from, so the broker logs why and shuts
// down (listeners closed, logs closed, no clean-shutdown marker), and
// Failed is closed so the process exits non-zero.
func (n *Node) watchLogDirFailures(ctx context.Context, failures *klog.LogDirFailureChannel) {
	var f klog.LogDirFailure
	select {
	case <-ctx.Done():
		return
	case f = <-failures.Failures():
	}
	n.logger.Error(fmt.Sprintf("Shutdown broker because all log dirs in %s have failed", n.dataDir),
		"failed_dir", f.Dir, "err", f.Err)
	n.failure = fmt.Errorf("log dir %s failed: %w", f.Dir, f.Err)
	sctx, cancel := context.WithTimeout(context.Background(), failureShutdownGrace)
	defer cancel()
	if err := n.Shutdown(sctx); err != nil {
		n.logger.Warn("closing the logs of the failed log dir", "err", err)
	}
	close(n.failed)
}

// Failed is closed once the broker has shut itself down because its log
// dir failed; Failure then says why.
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
