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
	// Dir is the log dir (one of log.dirs) holding the partition.
	Dir string
}

// Spec names a partition the metadata says this node hosts.
type Spec struct {
	klog.TopicPartition
	TopicID klog.TopicID
}

// ConfigFunc returns the effective log configuration of a topic: its
// overrides on top of the broker defaults.
type ConfigFunc func(topic string) klog.Config

// Manager owns the partition logs of the log dirs (log.dirs), as Kafka's
// LogManager: each partition lives in one dir, new ones go to the dir with
// the fewest partitions, and a dir that fails is taken offline with its
// partitions while the others keep serving.
type Manager struct {
	dirs      []*logDir // in log.dirs order; the first holds the metadata log
	logger    *slog.Logger
	configFor ConfigFunc
	failures  *klog.LogDirFailureChannel

	// mu serialises changes to the set of partitions; readers use parts.
	mu    sync.Mutex
	parts atomic.Pointer[map[klog.TopicPartition]*Partition]
	// offline are the partitions the metadata gives this node that are not
	// served because their log dir failed (those that failed to open, and
	// those that could not be found with a dir offline).
	offline atomic.Pointer[map[klog.TopicPartition]offlineReplica]
	// started: the first Reconcile, at start, is done.
	started bool
	// moves are the partitions being moved to another dir
	// (AlterReplicaLogDirs); guarded by mu.
	moves map[klog.TopicPartition]*move

	// placed is signalled when partitions were opened in a dir or moved
	// to another, for the broker to record where (see Placed).
	placed chan struct{}

	// recoveryThreads bounds the partitions opened or closed at once
	// (num.recovery.threads.per.data.dir).
	recoveryThreads atomic.Int32

	hooks copyHooks

	// cleaner is the log cleaner of these partitions (nil: none), paused
	// on a partition while it moves to another log dir.
	cleaner atomic.Pointer[Cleaner]
}

// SetRecoveryThreads sets how many partitions are opened or closed at once.
func (m *Manager) SetRecoveryThreads(n int) { m.recoveryThreads.Store(int32(max(1, n))) }

// Open prepares one log dir; partitions are opened by Reconcile.
func Open(dir string, configFor ConfigFunc, logger *slog.Logger) (*Manager, error) {
	return OpenDirs([]string{dir}, configFor, nil, logger)
}

// OpenDirs prepares the log dirs; partitions are opened by Reconcile. The
// failures channel is told of each dir whose storage fails (nil: failures
// are only logged and returned).
func OpenDirs(dirs []string, configFor ConfigFunc, failures *klog.LogDirFailureChannel, logger *slog.Logger) (*Manager, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if len(dirs) == 0 {
		return nil, errors.New("no log dirs")
	}
	m := &Manager{logger: logger, configFor: configFor, failures: failures, moves: map[klog.TopicPartition]*move{},
		placed: make(chan struct{}, 1)}
	m.recoveryThreads.Store(defaultRecoveryThreads)
	for _, path := range dirs {
		m.dirs = append(m.dirs, m.openLogDir(filepath.Clean(path)))
	}
	if m.allOffline() {
		m.closeSyncers()
		return nil, fmt.Errorf("none of the specified log dirs from %s can be created or validated", strings.Join(dirs, ", "))
	}
	empty := map[klog.TopicPartition]*Partition{}
	m.parts.Store(&empty)
	none := map[klog.TopicPartition]offlineReplica{}
	m.offline.Store(&none)
	return m, nil
}

// Dir is the first log dir, which holds the metadata log.
func (m *Manager) Dir() string { return m.dirs[0].path }

// Dirs are the log dirs in log.dirs order.
func (m *Manager) Dirs() []string {
	out := make([]string, len(m.dirs))
	for i, d := range m.dirs {
		out[i] = d.path
	}
	return out
}

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

// OpenLog opens a log outside the topic set (the metadata log) in the
// first log dir, with the recovery point from its checkpoint.
func (m *Manager) OpenLog(tp klog.TopicPartition, cfg klog.Config) (*klog.Log, error) {
	d := m.dirs[0]
	d.applyCheckpoints(tp, &cfg)
	return klog.Open(filepath.Join(d.path, tp.String()), cfg, m.logger)
}

// SetCleanShutdown says whether the logs about to be opened in dir were
// closed cleanly (Kafka's clean-shutdown marker, one per dir); the broker
// sets it for the logs it opens at start and clears it afterwards.
func (m *Manager) SetCleanShutdown(dir string, clean bool) {
	if d := m.logDir(dir); d != nil {
		d.cleanShutdown.Store(clean)
	}
}

// logDir is the dir at path, or nil.
func (m *Manager) logDir(path string) *logDir {
	path = filepath.Clean(path)
	for _, d := range m.dirs {
		if d.path == path {
			return d
		}
	}
	return nil
}

// Reconcile makes the open partitions exactly those in want: it opens (and
// creates) the missing ones, applies current topic configs to the others,
// and closes and deletes the directories of the ones no longer wanted
// (deleted topics). A directory holding a topic the metadata does not
// give that place — an earlier topic of the same name, or one the
// metadata lost — is kept aside as stray, never deleted: the first
// Reconcile, at start, looks at every partition directory; later ones at
// those of the partitions they open. A partition whose log dir fails as it
// opens is reported to the failure channel and kept offline; the error
// returned is for the others.
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
	homes, offline, placeErrs := m.place(toOpen, next)
	opened := make([]*Partition, len(toOpen))
	errs := make([]error, len(toOpen))
	inParallel(int(m.recoveryThreads.Load()), len(toOpen), func(i int) {
		if d := homes[i]; d != nil {
			opened[i], errs[i] = m.openPartition(toOpen[i], d)
		}
	})
	for i, p := range opened {
		switch {
		case p != nil:
			next[p.TopicPartition] = p
			m.signalPlaced()
		case errs[i] != nil && !errors.Is(errs[i], errNotThisTopic):
			m.failDir(homes[i], toOpen[i].TopicPartition, errs[i])
			offline[toOpen[i].TopicPartition] = offlineReplica{dir: homes[i].path, wentOffline: m.started}
			errs[i] = nil
		}
	}
	m.parts.Store(&next)
	m.offline.Store(&offline)
	m.started = true
	for tp, p := range old {
		if q, ok := next[tp]; ok && q == p {
			continue
		}
		m.abandonLocked(tp)
		m.deletePartition(p)
	}
	return errors.Join(append(append(errs, strayErrs...), placeErrs...)...)
}

// Placed is signalled (coalesced) after partitions were opened in a log
// dir or moved to another: the broker then records their directories in
// the metadata, as a Kafka broker reports them (AssignReplicasToDirs).
func (m *Manager) Placed() <-chan struct{} { return m.placed }

func (m *Manager) signalPlaced() {
	select {
	case m.placed <- struct{}{}:
	default:
	}
}

// DirectoryOf is the log dir holding the open partition.
func (m *Manager) DirectoryOf(topic string, partition int32) (string, bool) {
	p, ok := m.Get(topic, partition)
	if !ok {
		return "", false
	}
	return p.Dir, true
}

// failDir reports that d failed while opening tp, in Kafka's words.
func (m *Manager) failDir(d *logDir, tp klog.TopicPartition, err error) {
	msg := fmt.Sprintf("Error while creating log for %s in dir %s", tp, d.path)
	if !m.started {
		msg = "Error while loading log dir " + d.path
	}
	m.failures.MaybeAddOfflineLogDir(d.path, msg, err)
	if m.failures == nil {
		m.logger.Error(msg, "err", err)
	}
}

// errNotThisTopic: a partition directory holds another topic's data.
var errNotThisTopic = errors.New("the partition directory holds another topic id")

func (m *Manager) openPartition(s Spec, d *logDir) (*Partition, error) {
	dir := filepath.Join(d.path, s.TopicPartition.String())
	id, err := klog.ReadPartitionMetadata(dir)
	recorded := err == nil && id == s.TopicID
	if err == nil && id != s.TopicID {
		// Only a directory keepStraysAside skipped (its log still open)
		// gets here; its data is not this topic's to take or delete.
		return nil, fmt.Errorf("opening %s: %s holds topic id %s, not %s: %w", s.TopicPartition, dir, id, s.TopicID, errNotThisTopic)
	}
	cfg := m.configFor(s.Topic)
	d.applyCheckpoints(s.TopicPartition, &cfg)
	l, err := klog.Open(dir, cfg, m.logger)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", s.TopicPartition, err)
	}
	p := &Partition{TopicPartition: s.TopicPartition, TopicID: s.TopicID, Log: l, Dir: d.path}
	// Written once, as Kafka does: rewriting it on every start (a create,
	// fsync, rename and directory fsync per partition) was most of a
	// restart's time with 1,000 partitions.
	if recorded {
		return p, nil
	}
	if err := klog.WritePartitionMetadata(dir, s.TopicID); err != nil {
		l.Close()
		return nil, fmt.Errorf("writing partition.metadata of %s: %w", s.TopicPartition, err)
	}
	return p, nil
}

// deleteSuffix marks directories awaiting removal, as Kafka names them.
const deleteSuffix = "-delete"

// deletePartition closes a deleted topic's partition and removes its
// directory. A cleaning pass on it is aborted and waited for first, and the
// cleaner forgets it (Kafka's LogManager.asyncDelete: abortCleaning, then
// updateCheckpoints without the partition): the pass must not write into a
// directory being removed, nor a topic created later under the name
// inherit its cleaned offset or its uncleanable mark.
func (m *Manager) deletePartition(p *Partition) {
	if c := m.cleaner.Load(); c != nil {
		c.AbortAndPause(p.TopicPartition)
		defer c.forget(p.TopicPartition, p.Dir)
	}
	if err := p.Log.Close(); err != nil {
		m.logger.Warn("closing a deleted partition", "partition", p.TopicPartition.String(), "err", err)
	}
	if err := m.moveToDelete(p.Log.Dir(), p.TopicID); err != nil {
		m.logger.Error("could not delete partition directory", "dir", p.Log.Dir(), "err", err)
	}
	if d := m.logDir(p.Dir); d != nil {
		d.forget(p.TopicPartition)
	}
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

// WriteCheckpoints records every partition's recovery point and log start
// offset in the checkpoint files of its log dir, as Kafka does
// periodically and at shutdown. extra adds logs outside the topic set (the
// metadata log). A dir whose checkpoints cannot be written fails, as with
// Kafka's CheckpointFileWithFailureHandler; offline dirs are skipped.
func (m *Manager) WriteCheckpoints(extra ...*klog.Log) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	byDir := map[string][]*klog.Log{}
	for _, p := range *m.parts.Load() {
		byDir[p.Dir] = append(byDir[p.Dir], p.Log)
	}
	for _, l := range extra {
		dir := filepath.Dir(l.Dir())
		byDir[dir] = append(byDir[dir], l)
	}
	var errs []error
	for _, d := range m.dirs {
		if d.offline.Load() {
			continue
		}
		if err := d.writeCheckpoints(byDir[d.path]); err != nil {
			m.failures.MaybeAddOfflineLogDir(d.path, "Error while writing to checkpoint file in dir "+d.path, err)
			errs = append(errs, fmt.Errorf("log dir %s: %w", d.path, err))
		}
	}
	return errors.Join(errs...)
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
				if p.Log.Offline() {
					continue
				}
				if n, err := p.Log.DeleteOldSegments(); err != nil {
					m.logger.Warn("retention", "partition", p.TopicPartition.String(), "err", err)
				} else if n > 0 {
					m.logger.Info("retention deleted segments", "partition", p.TopicPartition.String(), "segments", n,
						"log_start_offset", p.Log.LogStartOffset())
				}
			}
			m.futureRetention()
		}
	}
}

// futureRetention applies retention to the copies of moves under way too,
// as Kafka's cleanupLogs does to its future logs; their log start also
// follows the current log's as they copy (see followLogStart).
func (m *Manager) futureRetention() {
	m.mu.Lock()
	futures := make([]*klog.Log, 0, len(m.moves))
	for _, mv := range m.moves {
		futures = append(futures, mv.future)
	}
	m.mu.Unlock()
	for _, l := range futures {
		// A move abandoned or restarted meanwhile closed its log: nothing
		// is left to delete from it.
		if _, err := l.DeleteOldSegments(); err != nil && !errors.Is(err, klog.ErrClosed) && !l.Offline() {
			m.logger.Warn("retention of a partition's copy in another log dir", "dir", l.Dir(), "err", err)
		}
	}
}

// Close flushes and closes every partition and writes the checkpoints of
// the dirs still online.
func (m *Manager) Close(extra ...*klog.Log) error {
	m.cancelMoves()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	parts := m.All()
	threads := int(m.recoveryThreads.Load())
	errs := make([]error, 2*len(parts)+1)
	inParallel(threads, len(parts), func(i int) {
		if !parts[i].Log.Offline() {
			errs[i] = parts[i].Log.Flush(ctx)
		}
	})
	errs[2*len(parts)] = m.WriteCheckpoints(extra...)
	inParallel(threads, len(parts), func(i int) {
		if err := parts[i].Log.Close(); err != nil && !parts[i].Log.Offline() {
			errs[len(parts)+i] = err
		}
	})
	// Logs still open (extra) fsync alone from here on.
	errs = append(errs, m.closeSyncers())
	return errors.Join(errs...)
}

func (m *Manager) closeSyncers() error {
	var errs []error
	for _, d := range m.dirs {
		if d.syncer != nil {
			errs = append(errs, d.syncer.Close())
		}
	}
	return errors.Join(errs...)
}
