package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// Errors of AlterLogDir, as Kafka's ReplicaManager.alterReplicaLogDirs
// throws them.
var (
	// ErrLogDirNotFound: the destination is not one of log.dirs
	// (LOG_DIR_NOT_FOUND).
	ErrLogDirNotFound = errors.New("log dir is not found in the config")
	// ErrReplicaNotAvailable: this node hosts no such partition
	// (REPLICA_NOT_AVAILABLE).
	ErrReplicaNotAvailable = errors.New("the replica is not available on this broker")
)

// FutureSuffix ends the directory of a partition being copied into
// another log dir, "<topic>-<partition>.<uuid>-future" (Kafka's
// UnifiedLog.FutureDirSuffix).
const FutureSuffix = "-future"

// moveCopyBytes is how much of the log one copy step reads.
const moveCopyBytes = 1 << 20

// copyHooks let the package's tests stop a move between copy steps; nil
// in the broker.
type copyHooks struct {
	stepBytes  int    // bytes read by one copy step (0: moveCopyBytes)
	beforeStep func() // called before each copy step outside the swap
}

// move is a partition being copied into another log dir, Kafka's future
// replica: a log beside the current one that catches up with it and then
// takes its place.
type move struct {
	from   *Partition
	dest   *logDir
	future *klog.Log
	stop   chan struct{} // closed to abandon the move
	done   chan struct{} // closed when the copier is gone
}

// AlterLogDir moves the partition tp into the log dir dest while it
// serves, as Kafka's AlterReplicaLogDirs: the log is copied batch by
// batch into a future log in dest until it has caught up, then, with
// appends held off, the rest is copied and the copy takes the current
// log's place (renamed to the partition's name, the old directory
// deleted). A move to the dir the partition is in abandons a move under
// way; one to another dir replaces it.
func (m *Manager) AlterLogDir(tp klog.TopicPartition, dest string) error {
	d := m.logDir(dest)
	if d == nil || !filepath.IsAbs(dest) {
		return fmt.Errorf("%w: log dir %s", ErrLogDirNotFound, dest)
	}
	if d.offline.Load() {
		return fmt.Errorf("%w: log directory %s is offline", klog.ErrStorage, dest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := (*m.parts.Load())[tp]
	switch {
	case !ok && m.wentOffline(tp):
		return fmt.Errorf("%w: partition %s is offline", klog.ErrStorage, tp)
	case !ok: // including one never loaded because its dir had failed at start
		return fmt.Errorf("%w: %s", ErrReplicaNotAvailable, tp)
	case p.Log.Offline():
		return fmt.Errorf("%w: partition %s is offline", klog.ErrStorage, tp)
	}
	if mv, ok := m.moves[tp]; ok {
		if mv.dest == d {
			return nil
		}
		m.abandonLocked(tp)
	}
	if p.Dir == d.path {
		return nil
	}
	m.pauseCleaning(tp)
	mv, err := m.startMove(p, d)
	if err != nil {
		m.resumeCleaning(tp)
		return err
	}
	m.moves[tp] = mv
	go m.runMove(mv)
	return nil
}

// pauseCleaning stops the cleaner on tp for a move, aborting a pass in
// progress, as Kafka's ReplicaManager.alterReplicaLogDirs pauses cleaning
// before the future replica is created: the current log is closed at the
// swap, and the cleaner must not swap segments into it meanwhile. Every
// move in m.moves holds one pause, released when it leaves (moved or
// abandoned).
func (m *Manager) pauseCleaning(tp klog.TopicPartition) {
	if c := m.cleaner.Load(); c != nil {
		c.AbortAndPause(tp)
	}
}

func (m *Manager) resumeCleaning(tp klog.TopicPartition) {
	if c := m.cleaner.Load(); c != nil {
		c.Resume(tp)
	}
}

func (m *Manager) wentOffline(tp klog.TopicPartition) bool {
	return (*m.offline.Load())[tp].wentOffline
}

// startMove creates the future log in d, starting where the current log
// starts.
func (m *Manager) startMove(p *Partition, d *logDir) (*move, error) {
	var id [16]byte
	rand.Read(id[:])
	dir := filepath.Join(d.path, fmt.Sprintf("%s.%s%s", p.TopicPartition, hex.EncodeToString(id[:]), FutureSuffix))
	cfg := m.configFor(p.Topic)
	cfg.Syncer = d.syncer
	cfg.LogStartOffset = m.firstBatchBase(p.Log)
	future, err := klog.Open(dir, cfg, m.logger)
	if err != nil {
		m.failures.MaybeAddOfflineLogDir(d.path, fmt.Sprintf("Error while creating log for %s in dir %s", filepath.Base(dir), d.path), err)
		return nil, fmt.Errorf("%w: creating the future log of %s in %s: %v", klog.ErrStorage, p.TopicPartition, d.path, err)
	}
	m.logger.Info("moving a partition to another log dir", "partition", p.TopicPartition.String(), "from", p.Dir, "to", d.path)
	return &move{from: p, dest: d, future: future, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// firstBatchBase is the base offset of the batch holding the log start
// offset, where the copy starts (a log start inside a batch, after
// DeleteRecords, keeps the whole batch).
func (m *Manager) firstBatchBase(l *klog.Log) int64 {
	lso := l.LogStartOffset()
	data, _, err := l.ReadBytes(nil, lso, record.HeaderSize, true)
	if err != nil || len(data) < record.HeaderSize {
		return lso
	}
	return min(record.Batch(data).BaseOffset(), lso)
}

// runMove copies until the future log has caught up, then swaps.
func (m *Manager) runMove(mv *move) {
	defer close(mv.done)
	var buf []byte
	for {
		select {
		case <-mv.stop:
			return
		default:
		}
		signal := mv.from.Log.AppendSignal()
		if m.hooks.beforeStep != nil {
			m.hooks.beforeStep()
		}
		copied, err := m.copyStep(mv, &buf, false)
		if err != nil {
			m.logger.Warn("moving a partition to another log dir stopped", "partition", mv.from.TopicPartition.String(), "err", err)
			m.abandon(mv)
			return
		}
		if copied {
			continue
		}
		if m.trySwap(mv, &buf) {
			return
		}
		select {
		case <-signal:
		case <-mv.stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// copyStep appends to the future log the next whole batches of the
// current one; it reports whether it copied any. The future log's start
// follows the current log's, which retention and DeleteRecords move on
// while the copy runs, as Kafka's future replica takes the log start
// offset of each fetch from the current one (maybeIncrementLogStartOffset);
// when the current log has deleted past what was copied, the copy starts
// again at its log start, as Kafka's truncateFullyAndStartAt on an
// out-of-range fetch (the move used to fail there).
func (m *Manager) copyStep(mv *move, buf *[]byte, locked bool) (bool, error) {
	if err := m.followLogStart(mv, locked); err != nil {
		return false, err
	}
	next := mv.future.LogEndOffset()
	if next >= mv.from.Log.LogEndOffset() {
		return false, nil
	}
	step := moveCopyBytes
	if m.hooks.stepBytes > 0 {
		step = m.hooks.stepBytes
	}
	data, _, err := mv.from.Log.ReadBytes(*buf, next, step, true)
	*buf = data
	if err != nil {
		return false, err
	}
	whole := wholeBatches(data)
	if len(whole) == 0 {
		return false, nil
	}
	if _, err := mv.future.Append(whole, klog.AppendOptions{Origin: klog.FromReplication, LeaderEpoch: -1}); err != nil {
		return false, fmt.Errorf("copying into %s: %w", mv.future.Dir(), err)
	}
	return true, nil
}

// followLogStart moves the future log's start up to the current log's,
// or starts the copy again when the current log no longer holds the next
// offset to copy; locked says the caller holds m.mu (the swap).
func (m *Manager) followLogStart(mv *move, locked bool) error {
	lso := mv.from.Log.LogStartOffset()
	if lso <= mv.future.LogStartOffset() {
		return nil
	}
	if lso > mv.future.LogEndOffset() {
		if !locked {
			m.mu.Lock()
			defer m.mu.Unlock()
		}
		return m.restartCopyLocked(mv)
	}
	if _, err := mv.future.DeleteRecords(lso); err != nil {
		return fmt.Errorf("moving the log start of %s to %d: %w", mv.future.Dir(), lso, err)
	}
	return nil
}

// restartCopyLocked replaces the future log with an empty one starting
// where the current log starts.
func (m *Manager) restartCopyLocked(mv *move) error {
	select {
	case <-mv.stop:
		return errors.New("the move was abandoned")
	default:
	}
	old := mv.future
	if err := old.Close(); err != nil && !old.Offline() {
		return fmt.Errorf("closing %s: %w", old.Dir(), err)
	}
	if err := os.RemoveAll(old.Dir()); err != nil {
		return fmt.Errorf("%w: removing %s: %v", klog.ErrStorage, old.Dir(), err)
	}
	cfg := m.configFor(mv.from.Topic)
	cfg.Syncer = mv.dest.syncer
	cfg.LogStartOffset = m.firstBatchBase(mv.from.Log)
	future, err := klog.Open(old.Dir(), cfg, m.logger)
	if err != nil {
		m.failures.MaybeAddOfflineLogDir(mv.dest.path, fmt.Sprintf("Error while creating log for %s in dir %s", filepath.Base(old.Dir()), mv.dest.path), err)
		return fmt.Errorf("%w: creating the future log of %s in %s: %v", klog.ErrStorage, mv.from.TopicPartition, mv.dest.path, err)
	}
	mv.future = future
	m.logger.Info("the current log was deleted past the copy: copying again from its log start", "partition", mv.from.TopicPartition.String(),
		"log_start_offset", cfg.LogStartOffset)
	return nil
}

// wholeBatches cuts a read short at its last whole batch.
func wholeBatches(data []byte) []byte {
	sp := record.NewSplitter(data, 0)
	sp.SkipCRC = true // checked when appended
	for {
		if b, err := sp.Next(); b == nil || err != nil {
			return data[:sp.Pos()]
		}
	}
}

// trySwap finishes the move when the future log has caught up: under the
// partition set's lock, appends to the current log stop (Seal), the
// rest is copied, both logs are closed, and the future directory takes
// the partition's name in dest, as Kafka's replaceCurrentWithFutureLog
// (the destination renamed first, then the source to "-delete"). Records
// acknowledged before the seal were copied; appends after it failed
// (retriable) and are retried on the new log.
func (m *Manager) trySwap(mv *move, buf *[]byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := (*m.parts.Load())[mv.from.TopicPartition]
	if cur != mv.from || m.moves[mv.from.TopicPartition] != mv {
		return false // abandoned or replaced meanwhile
	}
	from := mv.from.Log
	from.Seal()
	for {
		copied, err := m.copyStep(mv, buf, true)
		if err != nil {
			m.logger.Warn("moving a partition to another log dir stopped", "partition", mv.from.TopicPartition.String(), "err", err)
			m.abandonLocked(mv.from.TopicPartition)
			m.reopenLocked(mv.from)
			return true
		}
		if !copied {
			break
		}
	}
	if err := m.swapLocked(mv); err != nil {
		m.logger.Error("moving a partition to another log dir failed at the swap", "partition", mv.from.TopicPartition.String(), "err", err)
		return true
	}
	delete(m.moves, mv.from.TopicPartition)
	if c := m.cleaner.Load(); c != nil {
		c.moveCheckpoint(mv.from.TopicPartition, mv.from.Dir, mv.dest.path)
		c.Resume(mv.from.TopicPartition)
	}
	return true
}

// swapLocked closes both logs, renames, and opens the moved log in the
// partition's place.
func (m *Manager) swapLocked(mv *move) error {
	tp, from := mv.from.TopicPartition, mv.from.Log
	lso, epochs := from.LogStartOffset(), from.EpochEntries()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mv.future.Flush(ctx); err != nil {
		return err
	}
	futureDir := mv.future.Dir()
	if err := mv.future.Close(); err != nil {
		return err
	}
	if err := klog.WriteLeaderEpochCheckpoint(futureDir, epochs); err != nil {
		return err
	}
	if err := klog.WritePartitionMetadata(futureDir, mv.from.TopicID); err != nil {
		return err
	}
	if err := from.Close(); err != nil {
		m.logger.Warn("closing the moved partition's old log", "partition", tp.String(), "err", err)
	}
	target := filepath.Join(mv.dest.path, tp.String())
	if err := os.Rename(futureDir, target); err != nil {
		return err
	}
	if err := klog.SyncDir(mv.dest.path); err != nil {
		return err
	}
	if err := m.moveToDelete(from.Dir(), mv.from.TopicID); err != nil {
		m.logger.Error("could not delete the moved partition's old directory", "dir", from.Dir(), "err", err)
	}
	if src := m.logDir(mv.from.Dir); src != nil {
		src.forget(tp)
	}
	cfg := m.configFor(tp.Topic)
	mv.dest.applyCheckpoints(tp, &cfg)
	cfg.LogStartOffset, cfg.CleanShutdown = lso, true
	l, err := klog.Open(target, cfg, m.logger)
	if err != nil {
		m.failDir(mv.dest, tp, err)
		return err
	}
	next := make(map[klog.TopicPartition]*Partition, len(*m.parts.Load()))
	for k, v := range *m.parts.Load() {
		next[k] = v
	}
	next[tp] = &Partition{TopicPartition: tp, TopicID: mv.from.TopicID, Log: l, Dir: mv.dest.path}
	m.parts.Store(&next)
	m.signalPlaced()
	m.logger.Info("moved a partition to another log dir", "partition", tp.String(), "from", mv.from.Dir, "to", mv.dest.path,
		"log_end_offset", l.LogEndOffset())
	return nil
}

// reopenLocked puts a sealed log back in service after a failed final
// copy: it is closed and opened again in place.
func (m *Manager) reopenLocked(p *Partition) {
	if err := p.Log.Close(); err != nil {
		m.logger.Warn("closing a partition to reopen it", "partition", p.TopicPartition.String(), "err", err)
	}
	d := m.logDir(p.Dir)
	q, err := m.openPartition(Spec{TopicPartition: p.TopicPartition, TopicID: p.TopicID}, d)
	if err != nil {
		m.failDir(d, p.TopicPartition, err)
		return
	}
	next := make(map[klog.TopicPartition]*Partition, len(*m.parts.Load()))
	for k, v := range *m.parts.Load() {
		next[k] = v
	}
	next[p.TopicPartition] = q
	m.parts.Store(&next)
}

// abandon stops a move from its copier.
func (m *Manager) abandon(mv *move) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.moves[mv.from.TopicPartition] == mv {
		m.abandonLocked(mv.from.TopicPartition)
	}
}

// abandonLocked stops the move of tp and deletes its future log, as
// Kafka's removeFutureLocalReplica.
func (m *Manager) abandonLocked(tp klog.TopicPartition) {
	mv, ok := m.moves[tp]
	if !ok {
		return
	}
	delete(m.moves, tp)
	m.resumeCleaning(tp)
	select {
	case <-mv.stop:
	default:
		close(mv.stop)
	}
	dir := mv.future.Dir()
	if err := mv.future.Close(); err != nil && !mv.future.Offline() {
		m.logger.Warn("closing an abandoned future log", "dir", dir, "err", err)
	}
	if !mv.dest.offline.Load() {
		if err := os.RemoveAll(dir); err != nil {
			m.logger.Warn("removing an abandoned future log", "dir", dir, "err", err)
		}
	}
}

// cancelMovesIn abandons the moves into or out of the log dir path (it
// failed).
func (m *Manager) cancelMovesIn(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for tp, mv := range m.moves {
		if mv.dest.path == path || mv.from.Dir == path {
			m.abandonLocked(tp)
		}
	}
}

// cancelMoves abandons every move (shutdown) and waits for the copiers.
func (m *Manager) cancelMoves() {
	m.mu.Lock()
	var waits []chan struct{}
	for tp, mv := range m.moves {
		waits = append(waits, mv.done)
		m.abandonLocked(tp)
	}
	m.mu.Unlock()
	for _, w := range waits {
		<-w
	}
}

// Future is a partition's copy being made in another log dir, as
// DescribeLogDirs reports it (is_future).
type Future struct {
	klog.TopicPartition
	Dir  string
	Size int64
	// Lag is how far the copy is behind the current log's end.
	Lag int64
}

// Futures lists the moves under way.
func (m *Manager) Futures() []Future {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Future, 0, len(m.moves))
	for tp, mv := range m.moves {
		out = append(out, Future{TopicPartition: tp, Dir: mv.dest.path, Size: mv.future.Size(),
			Lag: max(mv.from.Log.LogEndOffset()-mv.future.LogEndOffset(), 0)})
	}
	return out
}
