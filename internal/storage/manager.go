package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
)

// Partition is one open partition log.
type Partition struct {
	klog.TopicPartition
	TopicID klog.TopicID
	Log     *klog.Log
}

// Spec names a partition the metadata says this node hosts.
type Spec struct {
	klog.TopicPartition
	TopicID klog.TopicID
}

// ConfigFunc returns the effective log configuration of a topic: its
// overrides on top of the broker defaults.
type ConfigFunc func(topic string) klog.Config

// Manager owns the partition logs of one log dir.
type Manager struct {
	dir       string
	logger    *slog.Logger
	configFor ConfigFunc

	// mu serialises changes to the set of partitions; readers use parts.
	mu    sync.Mutex
	parts atomic.Pointer[map[klog.TopicPartition]*Partition]

	recoveryPoints  map[klog.TopicPartition]int64
	logStartOffsets map[klog.TopicPartition]int64
	// cleanShutdown: the log dir was closed cleanly; logs opened while it
	// is set trust their active segments (see SetCleanShutdown).
	cleanShutdown atomic.Bool
	// recoveryThreads bounds the partitions opened or closed at once
	// (num.recovery.threads.per.data.dir).
	recoveryThreads atomic.Int32
	// syncer is group commit across the dir's partitions.
	syncer *klog.DirSyncer
	// straysChecked: the first Reconcile, at start, has looked at every
	// partition directory in the dir for strays (see moveStrays).
	straysChecked bool
}

// SetRecoveryThreads sets how many partitions are opened or closed at once.
func (m *Manager) SetRecoveryThreads(n int) { m.recoveryThreads.Store(int32(max(1, n))) }

// Open prepares the log dir; partitions are opened by Reconcile.
func Open(dir string, configFor ConfigFunc, logger *slog.Logger) (*Manager, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("log dir %s: %w", dir, err)
	}
	m := &Manager{dir: dir, logger: logger, configFor: configFor}
	m.recoveryThreads.Store(defaultRecoveryThreads)
	var err error
	if m.syncer, err = klog.NewDirSyncer(dir); err != nil {
		return nil, fmt.Errorf("log dir %s: %w", dir, err)
	}
	if m.recoveryPoints, err = klog.ReadOffsetCheckpoint(filepath.Join(dir, klog.RecoveryPointCheckpointFile)); err != nil {
		return nil, err
	}
	if m.logStartOffsets, err = klog.ReadOffsetCheckpoint(filepath.Join(dir, klog.LogStartOffsetCheckpointFile)); err != nil {
		return nil, err
	}
	empty := map[klog.TopicPartition]*Partition{}
	m.parts.Store(&empty)
	m.removeDeletedDirs()
	return m, nil
}

// Dir is the log dir.
func (m *Manager) Dir() string { return m.dir }

// Get returns an open partition.
func (m *Manager) Get(topic string, partition int32) (*Partition, bool) {
	p, ok := (*m.parts.Load())[klog.TopicPartition{Topic: topic, Partition: partition}]
	return p, ok
}

// All returns every open partition.
func (m *Manager) All() []*Partition {
	parts := *m.parts.Load()
	out := make([]*Partition, 0, len(parts))
	for _, p := range parts {
		out = append(out, p)
	}
	return out
}

// OpenLog opens a log outside the topic set (the metadata log), with the
// recovery point from the checkpoint.
func (m *Manager) OpenLog(tp klog.TopicPartition, cfg klog.Config) (*klog.Log, error) {
	m.applyCheckpoints(tp, &cfg)
	return klog.Open(filepath.Join(m.dir, tp.String()), cfg, m.logger)
}

// SetCleanShutdown says whether the logs about to be opened were closed
// cleanly (Kafka's clean-shutdown marker); the broker sets it for the
// logs it opens at start and clears it afterwards.
func (m *Manager) SetCleanShutdown(clean bool) { m.cleanShutdown.Store(clean) }

func (m *Manager) applyCheckpoints(tp klog.TopicPartition, cfg *klog.Config) {
	cfg.CleanShutdown = m.cleanShutdown.Load()
	cfg.Syncer = m.syncer
	if rp, ok := m.recoveryPoints[tp]; ok {
		cfg.RecoveryPoint = rp
	}
	if lso, ok := m.logStartOffsets[tp]; ok {
		cfg.LogStartOffset = lso
	}
}

// Reconcile makes the open partitions exactly those in want: it opens (and
// creates) the missing ones, applies current topic configs to the others,
// and closes and deletes the directories of the ones no longer wanted
// (deleted topics). A directory holding a topic the metadata does not
// give that place — an earlier topic of the same name, or one the
// metadata lost — is kept aside as stray, never deleted: the first
// Reconcile, at start, looks at every partition directory; later ones at
// those of the partitions they open.
func (m *Manager) Reconcile(want []Spec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.parts.Load()
	next := make(map[klog.TopicPartition]*Partition, len(want))
	var toOpen []Spec
	for _, s := range want {
		if p, ok := old[s.TopicPartition]; ok && p.TopicID == s.TopicID {
			// Topic configs may have changed (AlterConfigs); durability and
			// flush settings take effect at the next start.
			p.Log.UpdateConfig(m.configFor(s.Topic))
			next[s.TopicPartition] = p
			continue
		}
		toOpen = append(toOpen, s)
	}
	toOpen, strayErrs := m.keepStraysAside(want, toOpen, old)
	opened := make([]*Partition, len(toOpen))
	errs := make([]error, len(toOpen))
	inParallel(int(m.recoveryThreads.Load()), len(toOpen), func(i int) {
		opened[i], errs[i] = m.openPartition(toOpen[i])
	})
	for _, p := range opened {
		if p != nil {
			next[p.TopicPartition] = p
		}
	}
	m.parts.Store(&next)
	for tp, p := range old {
		if q, ok := next[tp]; ok && q == p {
			continue
		}
		m.deletePartition(p)
	}
	return errors.Join(append(errs, strayErrs...)...)
}

// keepStraysAside moves the stray directories among those Reconcile is
// about to open (all of the dir's, the first time) out of the way, and
// returns the partitions left to open.
func (m *Manager) keepStraysAside(want, toOpen []Spec, open map[klog.TopicPartition]*Partition) ([]Spec, []error) {
	dirs := map[klog.TopicPartition]string{}
	if !m.straysChecked {
		m.straysChecked = true
		m.reportStrays()
		listed, err := klog.ListPartitionDirs(m.dir)
		if err != nil {
			return nil, []error{fmt.Errorf("log dir %s: %w", m.dir, err)}
		}
		dirs = listed
	}
	for _, s := range toOpen {
		dirs[s.TopicPartition] = filepath.Join(m.dir, s.TopicPartition.String())
	}
	for tp := range open {
		delete(dirs, tp) // an open log's directory is Reconcile's to delete
	}
	wantIDs := make(map[klog.TopicPartition]klog.TopicID, len(want))
	for _, s := range want {
		wantIDs[s.TopicPartition] = s.TopicID
	}
	failed := m.moveStrays(dirs, wantIDs)
	if len(failed) == 0 {
		return toOpen, nil
	}
	var errs []error
	left := toOpen[:0:0]
	for _, s := range toOpen {
		if err, ok := failed[s.TopicPartition]; ok {
			errs = append(errs, err)
			continue
		}
		left = append(left, s)
	}
	return left, errs
}

func (m *Manager) openPartition(s Spec) (*Partition, error) {
	dir := filepath.Join(m.dir, s.TopicPartition.String())
	id, err := klog.ReadPartitionMetadata(dir)
	recorded := err == nil && id == s.TopicID
	if err == nil && id != s.TopicID {
		// Only a directory keepStraysAside skipped (its log still open)
		// gets here; its data is not this topic's to take or delete.
		return nil, fmt.Errorf("opening %s: %s holds topic id %s, not %s", s.TopicPartition, dir, id, s.TopicID)
	}
	cfg := m.configFor(s.Topic)
	m.applyCheckpoints(s.TopicPartition, &cfg)
	l, err := klog.Open(dir, cfg, m.logger)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", s.TopicPartition, err)
	}
	// Written once, as Kafka does: rewriting it on every start (a create,
	// fsync, rename and directory fsync per partition) was most of a
	// restart's time with 1,000 partitions.
	if recorded {
		return &Partition{TopicPartition: s.TopicPartition, TopicID: s.TopicID, Log: l}, nil
	}
	if err := klog.WritePartitionMetadata(dir, s.TopicID); err != nil {
		l.Close()
		return nil, fmt.Errorf("writing partition.metadata of %s: %w", s.TopicPartition, err)
	}
	return &Partition{TopicPartition: s.TopicPartition, TopicID: s.TopicID, Log: l}, nil
}

// deleteSuffix marks directories awaiting removal, as Kafka names them.
const deleteSuffix = "-delete"

func (m *Manager) deletePartition(p *Partition) {
	if err := p.Log.Close(); err != nil {
		m.logger.Warn("closing a deleted partition", "partition", p.TopicPartition.String(), "err", err)
	}
	if err := m.moveToDelete(p.Log.Dir(), p.TopicID); err != nil {
		m.logger.Error("could not delete partition directory", "dir", p.Log.Dir(), "err", err)
	}
	delete(m.recoveryPoints, p.TopicPartition)
	delete(m.logStartOffsets, p.TopicPartition)
}

// moveToDelete renames a partition directory to Kafka's
// "<topic>-<partition>.<topic id hex>-delete" form and removes it.
func (m *Manager) moveToDelete(dir string, id klog.TopicID) error {
	target := fmt.Sprintf("%s.%x%s", dir, id[:], deleteSuffix)
	if err := os.Rename(dir, target); err != nil {
		return err
	}
	return os.RemoveAll(target)
}

// removeDeletedDirs finishes deletions a crash interrupted.
func (m *Manager) removeDeletedDirs() {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasSuffix(e.Name(), deleteSuffix) {
			if err := os.RemoveAll(filepath.Join(m.dir, e.Name())); err != nil {
				m.logger.Warn("removing a deleted partition directory", "dir", e.Name(), "err", err)
			}
		}
	}
}

// WriteCheckpoints records every partition's recovery point and log start
// offset in the log dir's checkpoint files, as Kafka does periodically and
// at shutdown. extra adds logs outside the topic set (the metadata log).
func (m *Manager) WriteCheckpoints(extra ...*klog.Log) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rp := map[klog.TopicPartition]int64{}
	lso := map[klog.TopicPartition]int64{}
	for tp, p := range *m.parts.Load() {
		rp[tp] = p.Log.RecoveryPoint()
		lso[tp] = p.Log.LogStartOffset()
	}
	for _, l := range extra {
		tp := klog.TopicPartition{Topic: l.Topic(), Partition: l.Partition()}
		rp[tp] = l.RecoveryPoint()
		lso[tp] = l.LogStartOffset()
	}
	m.recoveryPoints, m.logStartOffsets = rp, lso
	return errors.Join(
		klog.WriteOffsetCheckpoint(filepath.Join(m.dir, klog.RecoveryPointCheckpointFile), rp),
		klog.WriteOffsetCheckpoint(filepath.Join(m.dir, klog.LogStartOffsetCheckpointFile), lso),
	)
}

// RunRetention deletes segments past retention.ms / retention.bytes every
// interval until ctx ends.
func (m *Manager) RunRetention(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, p := range m.All() {
				if n, err := p.Log.DeleteOldSegments(); err != nil {
					m.logger.Warn("retention", "partition", p.TopicPartition.String(), "err", err)
				} else if n > 0 {
					m.logger.Info("retention deleted segments", "partition", p.TopicPartition.String(), "segments", n,
						"log_start_offset", p.Log.LogStartOffset())
				}
			}
		}
	}
}

// Close flushes and closes every partition and writes the checkpoints.
func (m *Manager) Close(extra ...*klog.Log) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	parts := m.All()
	threads := int(m.recoveryThreads.Load())
	errs := make([]error, 2*len(parts)+1)
	inParallel(threads, len(parts), func(i int) { errs[i] = parts[i].Log.Flush(ctx) })
	errs[2*len(parts)] = m.WriteCheckpoints(extra...)
	inParallel(threads, len(parts), func(i int) { errs[len(parts)+i] = parts[i].Log.Close() })
	// Logs still open (extra) fsync alone from here on.
	errs = append(errs, m.syncer.Close())
	return errors.Join(errs...)
}
