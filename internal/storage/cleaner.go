package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
)

// CleanerOffsetCheckpointFile is Kafka's file at each log dir root holding,
// per compacted partition, the offset below which the log is clean.
const CleanerOffsetCheckpointFile = "cleaner-offset-checkpoint"

// CleanerConfig is the broker's log cleaner configuration (Kafka's
// CleanerConfig).
type CleanerConfig struct {
	Enable            bool          // log.cleaner.enable
	Threads           int           // log.cleaner.threads
	DedupeBufferBytes int64         // log.cleaner.dedupe.buffer.size, shared by the threads
	LoadFactor        float64       // log.cleaner.io.buffer.load.factor
	MaxIOBytesPerSec  float64       // log.cleaner.io.max.bytes.per.second
	Backoff           time.Duration // log.cleaner.backoff.ms: the sleep when nothing is cleanable
}

// CleanerConfigFrom reads the log.cleaner.* keys of a broker configuration.
func CleanerConfigFrom(b *config.Broker) CleanerConfig {
	return CleanerConfig{
		Enable:            b.Bool("log.cleaner.enable"),
		Threads:           int(b.Int("log.cleaner.threads")),
		DedupeBufferBytes: b.Long("log.cleaner.dedupe.buffer.size"),
		LoadFactor:        b.Double("log.cleaner.io.buffer.load.factor"),
		MaxIOBytesPerSec:  b.Double("log.cleaner.io.max.bytes.per.second"),
		Backoff:           millis(b.Long("log.cleaner.backoff.ms")),
	}
}

// Cleaner runs the log cleaner threads over the Manager's compacted
// partitions (Kafka's LogCleaner with its LogCleanerManager): each thread
// takes the dirtiest partition not being cleaned whose dirty ratio passed
// min.cleanable.dirty.ratio or whose max.compaction.lag.ms has passed,
// cleans it, and records the new first dirty offset in its log dir's
// cleaner-offset-checkpoint. A partition whose cleaning fails is marked
// uncleanable and skipped in that log dir until the broker restarts; the
// broker goes on. A partition moving to another log dir is not cleaned
// until the move ends (see AbortAndPause).
type Cleaner struct {
	m       *Manager
	cfg     CleanerConfig
	limiter *rate.Limiter // nil: unthrottled
	now     func() time.Time

	mu         sync.Mutex
	inProgress map[klog.TopicPartition]bool
	// cancels stop the passes in progress; idle is signalled when one ends.
	cancels map[klog.TopicPartition]context.CancelFunc
	idle    *sync.Cond
	// paused counts, per partition, why it must not be cleaned (Kafka's
	// LogCleaningPaused(n)): a move to another log dir holds one.
	paused      map[klog.TopicPartition]int
	uncleanable map[klog.TopicPartition]uncleanable
	// checkpoints: log dir -> partition -> first dirty offset.
	checkpoints map[string]map[klog.TopicPartition]int64
	threads     []threadStats // by thread number
	maxDirty    float64       // highest dirty ratio seen by the last choice
	lastRun     time.Time     // of the last choice (Kafka's timeOfLastRun)
	newest      *klog.CleanStats
}

// uncleanable is a partition whose cleaning failed, in its log dir.
type uncleanable struct {
	dir string
	err error
}

// threadStats is what a cleaner thread last did (Kafka's CleanerThread
// lastStats and lastPreCleanStats).
type threadStats struct {
	last               klog.CleanStats
	maxCompactionDelay time.Duration // the longest max.compaction.lag.ms overrun seen by its last choice
	dead               bool          // the thread stopped on a panic
}

// NewCleaner prepares the cleaner of m's partitions, reading each log dir's
// cleaner-offset-checkpoint.
func (m *Manager) NewCleaner(cfg CleanerConfig) *Cleaner {
	c := &Cleaner{m: m, cfg: cfg, now: time.Now, inProgress: map[klog.TopicPartition]bool{},
		cancels: map[klog.TopicPartition]context.CancelFunc{}, paused: map[klog.TopicPartition]int{},
		uncleanable: map[klog.TopicPartition]uncleanable{}, checkpoints: map[string]map[klog.TopicPartition]int64{}}
	c.idle = sync.NewCond(&c.mu)
	if cfg.Threads < 1 {
		c.cfg.Threads = 1
	}
	c.threads = make([]threadStats, c.cfg.Threads)
	c.lastRun = c.now()
	if cfg.MaxIOBytesPerSec > 0 && cfg.MaxIOBytesPerSec < math.MaxInt64 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.MaxIOBytesPerSec), max(int(cfg.MaxIOBytesPerSec), 1<<20))
	}
	for _, dir := range m.Dirs() {
		offsets, err := klog.ReadOffsetCheckpoint(filepath.Join(dir, CleanerOffsetCheckpointFile))
		if err != nil {
			m.logger.Warn("reading the cleaner offset checkpoint; cleaning from the log start", "dir", dir, "err", err)
		}
		if offsets == nil {
			offsets = map[klog.TopicPartition]int64{}
		}
		c.checkpoints[dir] = offsets
	}
	m.cleaner.Store(c)
	return c
}

// AbortAndPause stops cleaning tp until Resume (Kafka's
// LogCleanerManager.abortAndPauseCleaning): a pass in progress on it is
// cancelled, and the call returns once that pass has ended; pauses nest.
func (c *Cleaner) AbortAndPause(tp klog.TopicPartition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused[tp]++
	if cancel := c.cancels[tp]; cancel != nil {
		cancel()
	}
	for c.inProgress[tp] {
		c.idle.Wait()
	}
}

// Resume undoes one AbortAndPause of tp (Kafka's resumeCleaning).
func (c *Cleaner) Resume(tp klog.TopicPartition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused[tp]--; c.paused[tp] <= 0 {
		delete(c.paused, tp)
	}
}

// forget drops a deleted partition from the cleaner's state in log dir
// dir (its cleaned offset, its uncleanable mark), rewrites that dir's
// cleaner-offset-checkpoint, and undoes the AbortAndPause that preceded
// the deletion.
func (c *Cleaner) forget(tp klog.TopicPartition, dir string) {
	c.mu.Lock()
	delete(c.checkpoints[dir], tp)
	if u, ok := c.uncleanable[tp]; ok && u.dir == dir {
		delete(c.uncleanable, tp)
	}
	c.mu.Unlock()
	if err := c.writeCheckpoint(dir); err != nil {
		c.m.logger.Error("writing the cleaner offset checkpoint", "dir", dir, "err", err)
	}
	c.Resume(tp)
}

// moveCheckpoint carries tp's cleaned offset from log dir from to log dir
// to, whose partition it now is, and rewrites both files (Kafka's
// LogCleanerManager.alterCheckpointDir): the moved log holds the same
// batches at the same offsets, so what was clean stays clean.
func (c *Cleaner) moveCheckpoint(tp klog.TopicPartition, from, to string) {
	c.mu.Lock()
	off, ok := c.checkpoints[from][tp]
	if ok {
		delete(c.checkpoints[from], tp)
		if c.checkpoints[to] == nil {
			c.checkpoints[to] = map[klog.TopicPartition]int64{}
		}
		c.checkpoints[to][tp] = off
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	for _, dir := range []string{from, to} {
		if err := c.writeCheckpoint(dir); err != nil {
			c.m.logger.Error("writing the cleaner offset checkpoint", "dir", dir, "err", err)
		}
	}
}

// Run runs the cleaner threads until ctx ends (nothing when
// log.cleaner.enable is false).
func (c *Cleaner) Run(ctx context.Context) {
	if !c.cfg.Enable {
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < c.cfg.Threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.thread(ctx, i)
		}()
	}
	wg.Wait()
}

// thread is cleaner thread i. A panic stops it, as an unexpected error
// stops a Kafka cleaner thread (counted by DeadThreadCount); the broker
// goes on.
func (c *Cleaner) thread(ctx context.Context, i int) {
	defer func() {
		if r := recover(); r != nil {
			c.m.logger.Error("log cleaner thread stopped", "thread", i, "panic", fmt.Sprint(r))
			c.mu.Lock()
			c.threads[i].dead = true
			c.mu.Unlock()
		}
	}()
	for ctx.Err() == nil {
		if c.cleanFilthiest(ctx, i) {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(c.cfg.Backoff):
		}
	}
}

// CleanFilthiest cleans the dirtiest cleanable partition once, reporting
// whether there was one (Kafka's CleanerThread.tryCleanFilthiestLog).
// as cleaner thread 0.
func (c *Cleaner) CleanFilthiest(ctx context.Context) bool { return c.cleanFilthiest(ctx, 0) }

func (c *Cleaner) cleanFilthiest(ctx context.Context, thread int) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, section, ok := c.grabFilthiest(thread, cancel)
	if !ok {
		return false
	}
	defer func() {
		c.mu.Lock()
		delete(c.inProgress, p.TopicPartition)
		delete(c.cancels, p.TopicPartition)
		c.idle.Broadcast()
		c.mu.Unlock()
	}()
	settings := klog.CleanerSettings{DedupeBufferBytes: c.cfg.DedupeBufferBytes / int64(c.cfg.Threads),
		LoadFactor: c.cfg.LoadFactor, Throttle: c.throttle}
	stats, err := p.Log.Clean(ctx, section, settings, c.now())
	switch {
	case errors.Is(err, klog.ErrCleaningAborted) || ctx.Err() != nil:
		c.m.logger.Info("cleaning aborted", "partition", p.TopicPartition.String(), "err", err)
		return true
	case err != nil:
		c.m.logger.Error("cleaning failed; the partition is marked uncleanable", "partition", p.TopicPartition.String(), "err", err)
		c.mu.Lock()
		c.uncleanable[p.TopicPartition] = uncleanable{dir: p.Dir, err: err}
		c.mu.Unlock()
		return true
	}
	c.m.logger.Info("cleaned log", "partition", p.TopicPartition.String(), "firstDirty", section.FirstDirty,
		"cleanedTo", stats.EndOffset, "readBytes", stats.BytesRead, "mapReadBytes", stats.MapBytesRead, "writtenBytes", stats.BytesWritten,
		"messagesRead", stats.MessagesRead, "messagesRetained", stats.MessagesRetained, "elapsed", stats.Elapsed)
	c.mu.Lock()
	if c.checkpoints[p.Dir] == nil {
		c.checkpoints[p.Dir] = map[klog.TopicPartition]int64{}
	}
	c.checkpoints[p.Dir][p.TopicPartition] = stats.EndOffset
	c.threads[thread].last = stats
	c.newest = &stats
	c.mu.Unlock()
	if err := c.writeCheckpoint(p.Dir); err != nil {
		c.m.logger.Error("writing the cleaner offset checkpoint", "dir", p.Dir, "err", err)
		if c.m.failures != nil {
			c.m.failures.MaybeAddOfflineLogDir(p.Dir, "Error while writing the cleaner offset checkpoint in dir "+p.Dir, err)
		}
	}
	return true
}

// grabFilthiest is Kafka's LogCleanerManager.grabFilthiestCompactedLog:
// of the compacted partitions not in progress nor uncleanable, those with
// something cleanable whose max.compaction.lag.ms passed or whose dirty
// ratio is above min.cleanable.dirty.ratio; the one with the highest ratio
// is marked in progress and returned. Paused partitions are skipped, and a
// partition is uncleanable only in the log dir where its cleaning failed. It records, as Kafka's metrics
// read them, when it ran, the highest dirty ratio and the longest
// compaction delay it saw.
func (c *Cleaner) grabFilthiest(thread int, cancel context.CancelFunc) (*Partition, klog.Cleanable, bool) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastRun = now
	var maxDelay time.Duration
	defer func() { c.threads[thread].maxCompactionDelay = maxDelay }()
	type candidate struct {
		p *Partition
		s klog.Cleanable
	}
	var best *candidate
	c.maxDirty = 0
	for _, p := range c.m.All() {
		cfg := p.Log.Config().Compaction
		if u := c.uncleanable[p.TopicPartition]; !cfg.Compact || p.Log.Offline() || c.inProgress[p.TopicPartition] ||
			c.paused[p.TopicPartition] > 0 || (u.err != nil && u.dir == p.Dir) {
			continue
		}
		checkpoint := int64(-1)
		if off, ok := c.checkpoints[p.Dir][p.TopicPartition]; ok {
			checkpoint = off
		}
		s := p.Log.CleanableSection(checkpoint, now)
		ratio := s.DirtyRatio()
		c.maxDirty = max(c.maxDirty, ratio)
		maxDelay = max(maxDelay, s.CompactionDelay)
		if !(s.CompactionDelay > 0 && s.DirtyBytes > 0) && ratio <= cfg.MinCleanableDirtyRatio {
			continue
		}
		if best == nil || ratio > best.s.DirtyRatio() {
			best = &candidate{p, s}
		}
	}
	if best == nil {
		return nil, klog.Cleanable{}, false
	}
	c.inProgress[best.p.TopicPartition] = true
	c.cancels[best.p.TopicPartition] = cancel
	return best.p, best.s, true
}

func (c *Cleaner) throttle(ctx context.Context, n int) error {
	if c.limiter == nil {
		return nil
	}
	for n > 0 {
		step := min(n, c.limiter.Burst())
		if err := c.limiter.WaitN(ctx, step); err != nil {
			return err
		}
		n -= step
	}
	return nil
}

// writeCheckpoint writes dir's cleaner-offset-checkpoint with the
// partitions still in that dir.
func (c *Cleaner) writeCheckpoint(dir string) error {
	present := map[klog.TopicPartition]bool{}
	for _, p := range c.m.All() {
		if p.Dir == dir {
			present[p.TopicPartition] = true
		}
	}
	c.mu.Lock()
	out := map[klog.TopicPartition]int64{}
	for tp, off := range c.checkpoints[dir] {
		if present[tp] {
			out[tp] = off
		}
	}
	c.mu.Unlock()
	return klog.WriteOffsetCheckpoint(filepath.Join(dir, CleanerOffsetCheckpointFile), out)
}

// CleanerStatus is what the cleaner reports: Kafka's LogCleaner and
// LogCleanerManager gauges, with their integer truncations.
type CleanerStatus struct {
	// Over the threads' last passes (LogCleaner).
	MaxBufferUtilizationPercent int // max-buffer-utilization-percent
	CleanerRecopyPercent        int // cleaner-recopy-percent: bytes written over bytes read
	MaxCleanTimeSecs            int // max-clean-time-secs
	MaxCompactionDelaySecs      int // max-compaction-delay-secs
	DeadThreadCount             int // DeadThreadCount

	// LogCleanerManager.
	MaxDirtyPercent  int           // max-dirty-percent, of the last choice
	TimeSinceLastRun time.Duration // time-since-last-run-ms
	// UncleanablePartitions and UncleanableBytes are, per log dir (every
	// one the cleaner was created with), the partitions whose cleaning
	// failed and the cleanable bytes they hold
	// (uncleanable-partitions-count, uncleanable-bytes).
	UncleanablePartitions map[string]int
	UncleanableBytes      map[string]int64

	Uncleanable []string         // the partitions whose cleaning failed, sorted
	LastPass    *klog.CleanStats // the newest pass of any thread; nil before one
}

// Status reports the cleaner's state.
func (c *Cleaner) Status() CleanerStatus {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	st := CleanerStatus{MaxDirtyPercent: int(100 * c.maxDirty), TimeSinceLastRun: now.Sub(c.lastRun),
		UncleanablePartitions: map[string]int{}, UncleanableBytes: map[string]int64{}}
	var read, written int64
	var buffer, elapsed, delay float64
	for _, th := range c.threads {
		read += th.last.BytesRead
		written += th.last.BytesWritten
		buffer = max(buffer, 100*th.last.BufferUtilization)
		elapsed = max(elapsed, th.last.Elapsed.Seconds())
		delay = max(delay, th.maxCompactionDelay.Seconds())
		if th.dead {
			st.DeadThreadCount++
		}
	}
	st.CleanerRecopyPercent = int(100 * float64(written) / float64(max(read, 1)))
	st.MaxBufferUtilizationPercent, st.MaxCleanTimeSecs, st.MaxCompactionDelaySecs = int(buffer), int(elapsed), int(delay)
	for dir := range c.checkpoints {
		st.UncleanablePartitions[dir] = 0
		st.UncleanableBytes[dir] = 0
	}
	for tp, u := range c.uncleanable {
		st.Uncleanable = append(st.Uncleanable, tp.String())
		st.UncleanablePartitions[u.dir]++
		if p, ok := c.m.Get(tp.Topic, tp.Partition); ok && p.Dir == u.dir {
			checkpoint := int64(-1)
			if off, ok := c.checkpoints[u.dir][tp]; ok {
				checkpoint = off
			}
			st.UncleanableBytes[u.dir] += p.Log.CleanableSection(checkpoint, now).DirtyBytes
		}
	}
	sort.Strings(st.Uncleanable)
	if c.newest != nil {
		last := *c.newest
		st.LastPass = &last
	}
	return st
}
