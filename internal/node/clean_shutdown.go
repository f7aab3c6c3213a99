package node

import (
	"log/slog"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

// Kafka's .kafka_cleanshutdown marker ({"version":0,"brokerEpoch":N}) says
// the log dir was closed cleanly. Kafka trusts the recovery points when it
// is present, and its controller keeps a restarted broker eligible to lead
// its partitions only if N equals the broker epoch of the node's
// registration in the metadata log. So the marker must go the moment a
// broker starts (a crash must not leave it behind) and come back, with
// Karst's broker epoch, only after every log is flushed and closed.

// consumeCleanShutdownMarker removes the marker at start and reports
// whether it was there: the logs opened at start then trust their active
// segments instead of validating every record, as Kafka does.
func consumeCleanShutdownMarker(logDir string, logger *slog.Logger) (bool, error) {
	clean, epoch, err := klog.ConsumeCleanShutdownFile(logDir)
	if err == nil && clean {
		logger.Info("previous shutdown was clean", "broker_epoch", epoch)
	}
	return clean && err == nil, err
}

// markCleanShutdown writes the marker after the logs are closed.
func markCleanShutdown(logDir string) error {
	return klog.WriteCleanShutdownFile(logDir, metadata.SingleNodeBrokerEpoch)
}
