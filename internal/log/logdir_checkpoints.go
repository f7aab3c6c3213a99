package log

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
)

// CleanShutdownFile is the marker Kafka writes in a log dir on clean
// shutdown ({"version":0,"brokerEpoch":N}) and removes on start; with it
// Kafka trusts the recovery points instead of recovering.
const CleanShutdownFile = ".kafka_cleanshutdown"

// CheckpointLogDir writes the three offset checkpoints of one log dir from
// the given logs, as Kafka's LogManager does periodically and on shutdown:
// recovery points (what is fsynced), log start offsets, and high watermarks
// (replication-offset-checkpoint). Feed the values back through
// Config.RecoveryPoint and Config.LogStartOffset when opening the logs.
func CheckpointLogDir(logDir string, logs []*Log) error {
	rp := make(map[TopicPartition]int64, len(logs))
	lso := make(map[TopicPartition]int64, len(logs))
	hw := make(map[TopicPartition]int64, len(logs))
	for _, l := range logs {
		tp := TopicPartition{l.Topic(), l.Partition()}
		rp[tp] = l.RecoveryPoint()
		lso[tp] = l.LogStartOffset()
		hw[tp] = l.HighWatermark()
	}
	if err := WriteOffsetCheckpoint(filepath.Join(logDir, RecoveryPointCheckpointFile), rp); err != nil {
		return err
	}
	if err := WriteOffsetCheckpoint(filepath.Join(logDir, LogStartOffsetCheckpointFile), lso); err != nil {
		return err
	}
	return WriteOffsetCheckpoint(filepath.Join(logDir, ReplicationCheckpointFile), hw)
}

// LogDirCheckpoints are the per-partition values read back at start.
type LogDirCheckpoints struct {
	RecoveryPoints  map[TopicPartition]int64
	LogStartOffsets map[TopicPartition]int64
	HighWatermarks  map[TopicPartition]int64
}

// ReadLogDirCheckpoints reads the three checkpoint files (missing = empty).
func ReadLogDirCheckpoints(logDir string) (LogDirCheckpoints, error) {
	var c LogDirCheckpoints
	var err error
	if c.RecoveryPoints, err = ReadOffsetCheckpoint(filepath.Join(logDir, RecoveryPointCheckpointFile)); err != nil {
		return c, err
	}
	if c.LogStartOffsets, err = ReadOffsetCheckpoint(filepath.Join(logDir, LogStartOffsetCheckpointFile)); err != nil {
		return c, err
	}
	c.HighWatermarks, err = ReadOffsetCheckpoint(filepath.Join(logDir, ReplicationCheckpointFile))
	return c, err
}

type cleanShutdown struct {
	Version     int   `json:"version"`
	BrokerEpoch int64 `json:"brokerEpoch"`
}

// WriteCleanShutdownFile marks a clean shutdown the way Kafka 4.1 does.
func WriteCleanShutdownFile(logDir string, brokerEpoch int64) error {
	data, _ := json.Marshal(cleanShutdown{Version: 0, BrokerEpoch: brokerEpoch})
	return writeFileAtomic(filepath.Join(logDir, CleanShutdownFile), data)
}

// ConsumeCleanShutdownFile reports whether the last shutdown was clean (and
// its broker epoch, -1 if unknown) and removes the marker, as a starting
// broker must before it changes anything.
func ConsumeCleanShutdownFile(logDir string) (clean bool, brokerEpoch int64, err error) {
	path := filepath.Join(logDir, CleanShutdownFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, -1, nil
	}
	if err != nil {
		return false, -1, err
	}
	brokerEpoch = parseBrokerEpoch(data)
	if err := os.Remove(path); err != nil {
		return true, brokerEpoch, err
	}
	return true, brokerEpoch, syncDir(logDir)
}

// parseBrokerEpoch accepts what Kafka 4.1 writes ({"version":0,"brokerEpoch":9})
// and the older string-valued form ({"version":"0","broker_epoch":"9"}).
func parseBrokerEpoch(data []byte) int64 {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return -1
	}
	for _, k := range []string{"brokerEpoch", "broker_epoch"} {
		switch v := m[k].(type) {
		case float64:
			return int64(v)
		case string:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
