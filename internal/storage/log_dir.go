package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	klog "github.com/karst-broker/karst/internal/log"
)

// logDir is the state Karst keeps for one directory of log.dirs, as
// Kafka's LogManager keeps per dir: its checkpoints, its group commit, and
// whether it failed.
type logDir struct {
	path string
	// syncer is group commit across the dir's partitions.
	syncer *klog.DirSyncer
	// Guarded by Manager.mu.
	recoveryPoints  map[klog.TopicPartition]int64
	logStartOffsets map[klog.TopicPartition]int64
	// cleanShutdown: the dir was closed cleanly; logs opened while it is
	// set trust their active segments (see SetCleanShutdown).
	cleanShutdown atomic.Bool
	// straysChecked: the first Reconcile, at start, has looked at every
	// partition directory in the dir for strays (see moveStrays).
	straysChecked bool
	// offline: the dir failed; nothing in it is served or created.
	offline atomic.Bool
}

// openLogDir prepares one log dir and reads its checkpoints. A dir already
// reported failed (it could not be created, locked or formatted) is kept
// offline, and one that cannot be opened fails; a checkpoint that cannot be
// parsed fails the dir, as Kafka's CheckpointFileWithFailureHandler
// reports it to the LogDirFailureChannel. As Kafka's LogManager.loadLogs,
// loading goes on with the other dirs.
func (m *Manager) openLogDir(path string) *logDir {
	d := &logDir{path: path, recoveryPoints: map[klog.TopicPartition]int64{}, logStartOffsets: map[klog.TopicPartition]int64{}}
	if m.failures.IsOffline(path) {
		d.offline.Store(true)
		return d
	}
	var err error
	if err = os.MkdirAll(path, 0o755); err == nil {
		d.syncer, err = klog.NewDirSyncer(path)
	}
	if err != nil {
		m.failures.MaybeAddOfflineLogDir(path, "Error while loading log dir "+path, err)
		if m.failures == nil {
			m.logger.Error("Error while loading log dir "+path, "err", err)
		}
		d.offline.Store(true)
		return d
	}
	d.recoveryPoints = m.readCheckpoint(d, klog.RecoveryPointCheckpointFile, "resetting the recovery checkpoint to 0")
	d.logStartOffsets = m.readCheckpoint(d, klog.LogStartOffsetCheckpointFile, "resetting to the base offset of the first segment")
	// Karst keeps no high watermark apart from the log end on one node,
	// but Kafka reads this file as each partition becomes leader and a
	// malformed one fails the dir; a dir Kafka wrote is treated alike.
	m.readCheckpoint(d, klog.ReplicationCheckpointFile, "the high watermarks are the log end offsets")
	m.removeDeletedDirs(d)
	return d
}

// readCheckpoint reads one of the dir's offset checkpoints; a file that
// cannot be read or parsed takes the dir offline and reads as empty.
func (m *Manager) readCheckpoint(d *logDir, file, fallback string) map[klog.TopicPartition]int64 {
	path := filepath.Join(d.path, file)
	offsets, err := klog.ReadOffsetCheckpoint(path)
	if err == nil {
		return offsets
	}
	abs, _ := filepath.Abs(path)
	m.failures.MaybeAddOfflineLogDir(d.path, "Error while reading checkpoint file "+abs, err)
	m.logger.Warn(fmt.Sprintf("Error occurred while reading %s file of directory %s, %s", file, d.path, fallback), "err", err)
	return map[klog.TopicPartition]int64{}
}

// applyCheckpoints gives a log about to be opened in d what d knows of it.
func (d *logDir) applyCheckpoints(tp klog.TopicPartition, cfg *klog.Config) {
	cfg.CleanShutdown = d.cleanShutdown.Load()
	cfg.Syncer = d.syncer
	if rp, ok := d.recoveryPoints[tp]; ok {
		cfg.RecoveryPoint = rp
	}
	if lso, ok := d.logStartOffsets[tp]; ok {
		cfg.LogStartOffset = lso
	}
}

// forget drops tp from d's checkpoints (deleted, stray or moved away).
func (d *logDir) forget(tp klog.TopicPartition) {
	delete(d.recoveryPoints, tp)
	delete(d.logStartOffsets, tp)
}

// writeCheckpoints records the recovery points and log start offsets of
// the logs in d.
func (d *logDir) writeCheckpoints(logs []*klog.Log) error {
	rp := make(map[klog.TopicPartition]int64, len(logs))
	lso := make(map[klog.TopicPartition]int64, len(logs))
	for _, l := range logs {
		tp := klog.TopicPartition{Topic: l.Topic(), Partition: l.Partition()}
		rp[tp] = l.RecoveryPoint()
		lso[tp] = l.LogStartOffset()
	}
	d.recoveryPoints, d.logStartOffsets = rp, lso
	return errors.Join(
		klog.WriteOffsetCheckpoint(filepath.Join(d.path, klog.RecoveryPointCheckpointFile), rp),
		klog.WriteOffsetCheckpoint(filepath.Join(d.path, klog.LogStartOffsetCheckpointFile), lso),
	)
}

// removeDeletedDirs finishes deletions a crash interrupted and removes
// the copies of moves it interrupted.
func (m *Manager) removeDeletedDirs(d *logDir) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasSuffix(e.Name(), FutureSuffix) {
			// A move a crash or shutdown interrupted: the copy is partial
			// and the current log, still in place, is the partition.
			m.logger.Warn("removing the copy of an interrupted move to this log dir", "dir", e.Name())
		}
		if e.IsDir() && (strings.HasSuffix(e.Name(), deleteSuffix) || strings.HasSuffix(e.Name(), FutureSuffix)) {
			if err := os.RemoveAll(filepath.Join(d.path, e.Name())); err != nil {
				m.logger.Warn("removing a deleted partition directory", "dir", e.Name(), "err", err)
			}
		}
	}
}
