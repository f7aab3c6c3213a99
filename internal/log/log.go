package log

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Log is one partition's log (Kafka's UnifiedLog + LocalLog): an ordered
// list of segments, the last of which is active.
//
// Ownership:
//   - mu (write) is held by Append, roll, retention, DeleteRecords and Close:
//     every change to segments, the active segment's files and indexes,
//     producer state, the leader epoch cache and pending fsync work.
//   - mu (read) is held by Read and the timestamp lookups while they consult
//     indexes (memory maps that are only unmapped under the write lock).
//     Bytes they return are read after unlocking: a segment's file only
//     grows while it is in the list, and a deleted segment's descriptor stays
//     open for Config.FileDeleteDelay.
//   - logStartOffset, logEndOffset and highWatermark are written under the
//     write lock and read lock-free (atomics), so a parked fetch can poll
//     them cheaply.
//   - The flusher goroutine (flush.go) owns fsync; durable is what it has
//     made durable. notifyMu guards the long-poll channel (wait.go).
type Log struct {
	dir       string
	topic     string
	partition int32
	cfg       Config
	logger    *slog.Logger

	mu                sync.RWMutex
	segments          []*segment
	producers         *producerStateManager
	pending           pendingProducers
	txnEvents         []txnEvent // scratch of Append
	epochs            *leaderEpochCache
	unflushedMessages int64
	toSync            []*segment // rolled segments that still need fsync
	syncer            *DirSyncer // shares the active segment's fsync with the log dir's other logs
	dirDirty          bool       // directory entries changed since the last fsync

	// Fixed at Open, read without the lock (cfg may change under it).
	now           func() time.Time
	durability    Durability
	flushInterval time.Duration
	flushMessages int64
	dirFailures   *LogDirFailureChannel

	maxMessageBytes atomic.Int64 // cfg.MaxMessageBytes, read before the lock is taken
	// timestampRules is what validate checks CreateTime timestamps
	// against, read before the lock is taken.
	timestampRules atomic.Pointer[timestampRules]
	logStartOffset atomic.Int64
	logEndOffset   atomic.Int64
	highWatermark  atomic.Int64
	// firstUnstable is the first offset of the oldest open transaction
	// (math.MaxInt64 if none), written under the write lock.
	firstUnstable atomic.Int64
	closed        atomic.Bool
	// sealed: appends refused, reads served (see Seal).
	sealed atomic.Bool

	flush flusher

	notifyMu sync.Mutex
	notify   chan struct{}
}

// Open opens or creates the partition log in dir (named "<topic>-<partition>"),
// running recovery: every segment from the one holding cfg.RecoveryPoint on
// is validated batch by batch, a torn or corrupt tail is truncated (later
// segments are deleted), and missing or corrupt indexes are rebuilt. All
// cuts are logged at WARN.
func Open(dir string, cfg Config, logger *slog.Logger) (*Log, error) {
	cfg = cfg.withDefaults()
	if logger == nil {
		logger = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l := &Log{dir: dir, cfg: cfg, producers: newProducerStateManager()}
	l.maxMessageBytes.Store(int64(cfg.MaxMessageBytes))
	l.timestampRules.Store(newTimestampRules(cfg))
	l.now, l.durability, l.flushInterval, l.flushMessages = cfg.Now, cfg.Durability, cfg.FlushInterval, cfg.FlushMessages
	l.syncer, l.dirFailures = cfg.Syncer, cfg.DirFailures
	l.topic, l.partition, _ = ParseTopicPartition(dir)
	l.logger = logger.With("partition", filepath.Base(dir))
	if err := l.load(); err != nil {
		for _, s := range l.segments {
			s.closeFiles()
		}
		return nil, err
	}
	l.startFlusher()
	return l, nil
}

// load scans the directory, recovers segments, and rebuilds in-memory state.
func (l *Log) load() error {
	if err := l.completeInterruptedSwaps(); err != nil {
		return err
	}
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return err
	}
	logs := map[int64]bool{}
	for _, e := range entries {
		name := e.Name()
		if off, ok := parseOffsetName(name, LogSuffix); ok {
			logs[off] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(l.dir, name)
		switch {
		case strings.HasSuffix(name, DeletedSuffix), strings.HasSuffix(name, CleanedSuffix),
			strings.HasSuffix(name, SwapSuffix), strings.HasSuffix(name, ".tmp"):
			// Leftovers of an interrupted delete, clean or checkpoint write.
			l.logger.Warn("removing leftover file", "file", name)
			_ = os.Remove(path)
		case strings.HasSuffix(name, IndexSuffix), strings.HasSuffix(name, TimeIndexSuffix), strings.HasSuffix(name, TxnIndexSuffix):
			base := name[:strings.LastIndexByte(name, '.')]
			if off, ok := parseOffsetName(base+LogSuffix, LogSuffix); !ok || !logs[off] {
				l.logger.Warn("removing index without a log segment", "file", name)
				_ = os.Remove(path)
			}
		}
	}
	bases := make([]int64, 0, len(logs))
	for b := range logs {
		bases = append(bases, b)
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] < bases[j] })
	for _, b := range bases {
		s, err := openSegment(l.dir, b)
		if err != nil {
			return err
		}
		l.segments = append(l.segments, s)
	}
	now := l.cfg.Now()
	if len(l.segments) == 0 {
		s, err := createSegment(l.dir, max(l.cfg.LogStartOffset, 0), l.cfg.SegmentIndexBytes, now)
		if err != nil {
			return err
		}
		l.segments = append(l.segments, s)
		l.dirDirty = true
	}
	if err := l.recoverSegments(); err != nil {
		return err
	}
	active := l.active()
	if err := active.makeActive(l.cfg.SegmentIndexBytes); err != nil {
		return err
	}
	leo := active.nextOffset
	lso := max(l.cfg.LogStartOffset, l.segments[0].baseOffset)
	if lso > leo {
		l.logger.Warn("log start offset past log end; clamping", "logStartOffset", lso, "logEndOffset", leo)
		lso = leo
	}
	l.logStartOffset.Store(lso)
	l.logEndOffset.Store(leo)
	l.highWatermark.Store(leo)
	l.flush.durable.Store(leo)

	if err := l.loadProducerState(leo, now); err != nil {
		return err
	}
	return l.loadLeaderEpochs(lso, leo)
}

// recoverSegments validates the segments from the recovery point on and
// sanity-checks the indexes of the ones before it.
func (l *Log) recoverSegments() error {
	rp := l.cfg.RecoveryPoint
	first := 0
	for i, s := range l.segments {
		if s.baseOffset <= rp {
			first = i
		}
	}
	for i := 0; i < first; i++ {
		s := l.segments[i]
		if err := l.checkTxnIndex(s, l.segments[i+1].baseOffset); err != nil {
			return err
		}
		if err := s.loadInactive(l.segments[i+1].baseOffset); err != nil {
			l.logger.Warn("rebuilding index of segment", "segment", s.baseOffset, "reason", err)
			cut, why, err := s.recover(l.cfg.IndexIntervalBytes, l.cfg.SegmentIndexBytes, nil)
			if err == nil {
				err = s.indexErr
			}
			if err != nil {
				return err
			}
			if cut > 0 {
				l.logger.Warn("truncated corrupt bytes in a segment below the recovery point",
					"segment", s.baseOffset, "bytes", cut, "reason", why)
				if err := s.txnIdx.reset(); err != nil {
					return fmt.Errorf("%w: %v", ErrStorage, err)
				}
				s.rebuildTxnIdx = true
			}
			if err := s.onBecomeInactive(); err != nil {
				return err
			}
			if err := s.syncIndexes(); err != nil {
				return err
			}
		}
	}
	if l.cfg.CleanShutdown && first == len(l.segments)-1 {
		s := l.active()
		err := s.loadActiveClean()
		if err == nil {
			err = l.checkTxnIndex(s, s.nextOffset)
		}
		if err == nil {
			return nil
		}
		l.logger.Warn("recovering the active segment despite a clean shutdown", "segment", s.baseOffset, "reason", err)
	}
	for i := first; i < len(l.segments); i++ {
		s := l.segments[i]
		// Rebuilt by loadProducerState's replay, as Kafka's
		// LogSegment.recover rebuilds it.
		if err := s.txnIdx.reset(); err != nil {
			return fmt.Errorf("%w: %v", ErrStorage, err)
		}
		s.rebuildTxnIdx = true
		cut, why, err := s.recover(l.cfg.IndexIntervalBytes, l.cfg.SegmentIndexBytes, nil)
		if err == nil {
			err = s.indexErr // a full disk while rebuilding the indexes
		}
		if err != nil {
			return err
		}
		if err := s.sync(); err != nil {
			return err
		}
		if cut > 0 || why != nil {
			level := slog.LevelWarn
			if s.nextOffset < rp {
				// Bytes below the recovery point were fsynced: this is
				// corruption, not a write torn by the crash.
				level = slog.LevelError
			}
			l.logger.Log(context.Background(), level, "truncated torn or corrupt log tail",
				"file", s.logPath(), "segment", s.baseOffset, "validBytes", s.size.Load(), "cutBytes", cut,
				"nextOffset", s.nextOffset, "recoveryPoint", rp, "reason", why)
			for _, later := range l.segments[i+1:] {
				l.logger.Warn("deleting segment after the truncation point",
					"segment", later.baseOffset, "bytes", later.size.Load())
				if err := later.remove(0); err != nil {
					return err
				}
			}
			l.segments = l.segments[:i+1]
			l.dirDirty = true
			break
		}
		if i < len(l.segments)-1 {
			if err := s.onBecomeInactive(); err != nil {
				return err
			}
			if err := s.syncIndexes(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *Log) active() *segment { return l.segments[len(l.segments)-1] }

// Close flushes everything, writes a producer snapshot at the log end
// offset, trims the indexes and closes the files. Appends after Close fail
// with ErrClosed; parked waiters are woken.
func (l *Log) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	flushErr := l.stopFlusher()
	l.mu.Lock()
	defer l.mu.Unlock()
	// An append may have slipped in after the flusher's last round.
	err := l.active().sync()
	if err == nil && flushErr == nil {
		l.flush.durable.Store(l.logEndOffset.Load())
	}
	if e := l.producers.writeSnapshot(l.dir, l.logEndOffset.Load()); err == nil {
		err = e
	}
	for _, s := range l.segments {
		if e := s.close(); err == nil {
			err = e
		}
	}
	if err == nil {
		err = flushErr
	}
	l.wakeWaiters()
	return err
}

// Dir is the partition directory.
func (l *Log) Dir() string { return l.dir }

// Topic and Partition are parsed from the directory name.
func (l *Log) Topic() string    { return l.topic }
func (l *Log) Partition() int32 { return l.partition }

// LogStartOffset is the first offset a reader may fetch.
func (l *Log) LogStartOffset() int64 { return l.logStartOffset.Load() }

// LogEndOffset is the offset the next appended record will get.
func (l *Log) LogEndOffset() int64 { return l.logEndOffset.Load() }

// HighWatermark is the end of what consumers may read. On a single node it
// follows the log end offset after every append; it is kept apart so that
// replication can hold it back later.
func (l *Log) HighWatermark() int64 { return l.highWatermark.Load() }

// RecoveryPoint is the offset below which everything has been fsynced; the
// broker writes it to recovery-point-offset-checkpoint.
func (l *Log) RecoveryPoint() int64 { return l.flush.durable.Load() }

// Config returns the configuration the log runs with (defaults filled in).
func (l *Log) Config() Config {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.cfg
}

// Size is the total bytes of all segment files.
func (l *Log) Size() int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var n int64
	for _, s := range l.segments {
		n += s.size.Load()
	}
	return n
}

// SegmentBaseOffsets lists the segments' base offsets, oldest first.
func (l *Log) SegmentBaseOffsets() []int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]int64, len(l.segments))
	for i, s := range l.segments {
		out[i] = s.baseOffset
	}
	return out
}

// LatestEpoch is the newest leader epoch in the epoch cache (-1 if none).
func (l *Log) LatestEpoch() int32 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if e, ok := l.epochs.latest(); ok {
		return e.Epoch
	}
	return -1
}

// EndOffsetForEpoch answers OffsetForLeaderEpoch: the largest epoch <=
// epoch and the end offset of that epoch; (-1, -1) if unknown.
func (l *Log) EndOffsetForEpoch(epoch int32) (int32, int64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.epochs.endOffsetFor(epoch, l.logEndOffset.Load())
}

// EpochEntries returns a copy of the leader epoch cache.
func (l *Log) EpochEntries() []EpochEntry {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return append([]EpochEntry(nil), l.epochs.entries...)
}
