package node

import (
	"log/slog"

	"github.com/karst-broker/karst/internal/loglevel"
)

// The loggers each part of the broker writes to, by the names
// BROKER_LOGGER configs address (kafka-configs --entity-type
// broker-loggers): all below "karst", so one change reaches them all.
const (
	loggerNode    = "karst.node"
	loggerServer  = "karst.server"
	loggerHandler = "karst.handler"
	loggerStorage = "karst.storage"
	loggerGroup   = "karst.group"
	loggerTxn     = "karst.txn"
	loggerShare   = "karst.share"
	loggerConsole = "karst.console"
)

// logLevels returns cfg's loggers, or, when the caller gave none, loggers
// over cfg.Logger (slog's default if nil) with root at the lowest level it
// writes.
func logLevels(cfg *Config) *loglevel.Levels {
	if cfg.LogLevels != nil {
		return cfg.LogLevels
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return loglevel.New(logger.Handler(), loglevel.LowestEnabled(logger.Handler()))
}
