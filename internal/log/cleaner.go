package log

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// ErrCleaningAborted: the log changed under a cleaning pass (its segments
// were deleted, truncated or it was closed), so the pass was dropped and
// nothing of it was swapped in.
var ErrCleaningAborted = errors.New("log cleaning aborted")

// Cleanable is a compacted log's dirty section as Kafka's
// LogCleanerManager.cleanableOffsets measures it.
type Cleanable struct {
	FirstDirty       int64 // first offset not yet cleaned
	FirstUncleanable int64 // first offset cleaning must not reach
	CleanBytes       int64 // bytes of the segments before FirstDirty
	DirtyBytes       int64 // bytes of the segments in [FirstDirty, FirstUncleanable)
	// CompactionDelay is how long ago max.compaction.lag.ms passed for the
	// oldest dirty record (0: not yet), which forces a clean whatever the
	// dirty ratio.
	CompactionDelay time.Duration
}

// DirtyRatio is dirty bytes over all cleanable bytes (Kafka's cleanableRatio).
func (c Cleanable) DirtyRatio() float64 {
	if c.CleanBytes+c.DirtyBytes == 0 {
		return 0
	}
	return float64(c.DirtyBytes) / float64(c.CleanBytes+c.DirtyBytes)
}

// CleanableSection measures the dirty section given the cleaner's
// checkpointed offset (-1 if none): the first dirty offset is the
// checkpoint unless it lies outside [log start, log end); cleaning stops
// before the last stable offset, the active segment and the first segment
// whose newest record is younger than min.compaction.lag.ms.
func (l *Log) CleanableSection(checkpoint int64, now time.Time) Cleanable {
	l.mu.RLock()
	defer l.mu.RUnlock()
	start, end := l.logStartOffset.Load(), l.logEndOffset.Load()
	firstDirty := checkpoint
	if firstDirty < start || firstDirty > end {
		firstDirty = start
	}
	active := l.active()
	firstUncleanable := min(l.LastStableOffset(), active.baseOffset)
	lag := l.cfg.Compaction.MinCompactionLag.Milliseconds()
	nowMs := now.UnixMilli()
	for _, s := range l.segments[:len(l.segments)-1] {
		if s.baseOffset >= firstUncleanable {
			break
		}
		if l.segmentEnd(s) <= firstDirty {
			continue
		}
		if lag > 0 && s.largestTimestamp() > nowMs-lag {
			firstUncleanable = s.baseOffset
			break
		}
	}
	firstUncleanable = max(firstUncleanable, firstDirty)
	c := Cleanable{FirstDirty: firstDirty, FirstUncleanable: firstUncleanable}
	var earliestDirty int64 = math.MaxInt64
	for _, s := range l.segments {
		switch {
		case l.segmentEnd(s) <= firstDirty:
			c.CleanBytes += s.size.Load()
		case s.baseOffset < firstUncleanable:
			c.DirtyBytes += s.size.Load()
			if ts := s.firstBatchTimestamp(); ts >= 0 {
				earliestDirty = min(earliestDirty, ts)
			}
		}
	}
	if maxLag := l.cfg.Compaction.MaxCompactionLag; maxLag > 0 && maxLag < math.MaxInt64/2 && earliestDirty != math.MaxInt64 {
		if d := nowMs - earliestDirty - maxLag.Milliseconds(); d > 0 {
			c.CompactionDelay = time.Duration(d) * time.Millisecond
		}
	}
	return c
}

// segmentEnd is the offset after segment s: the next segment's base, or
// the log end for the active one. Caller holds the lock.
func (l *Log) segmentEnd(s *segment) int64 {
	for i, t := range l.segments {
		if t == s && i+1 < len(l.segments) {
			return l.segments[i+1].baseOffset
		}
	}
	return s.nextOffset
}

// firstBatchTimestamp is the max timestamp of the segment's first batch
// (Kafka's LogSegment.getFirstBatchTimestamp), or -1 if it has none.
func (s *segment) firstBatchTimestamp() int64 {
	if s.rollingBasedTimestamp != record.NoTimestamp {
		return s.rollingBasedTimestamp
	}
	var buf [record.HeaderSize]byte
	b, err := s.readHeader(0, s.size.Load(), &buf)
	if err != nil || b == nil {
		return -1
	}
	return b.MaxTimestamp()
}

// CleanerSettings are the broker-wide cleaner settings one pass uses.
type CleanerSettings struct {
	// DedupeBufferBytes is this thread's share of
	// log.cleaner.dedupe.buffer.size.
	DedupeBufferBytes int64
	// LoadFactor is log.cleaner.io.buffer.load.factor: the share of the
	// offset map's slots one pass fills.
	LoadFactor float64
	// Throttle, if set, is called with the bytes read or written so far
	// (log.cleaner.io.max.bytes.per.second).
	Throttle func(ctx context.Context, n int) error
}

// CleanStats is what one cleaning pass did (Kafka's CleanerStats).
type CleanStats struct {
	EndOffset int64 // the new first dirty offset: the pass cleaned below it
	// BytesRead and MessagesRead are what the copy read (Kafka's
	// CleanerStats.bytesRead, the denominator of cleaner-recopy-percent);
	// MapBytesRead is what building the offset map read (mapBytesRead).
	BytesRead         int64
	MapBytesRead      int64
	BytesWritten      int64
	MessagesRead      int64
	MessagesRetained  int64
	BufferUtilization float64
	Elapsed           time.Duration
}

// cleanerCrashHook, set by tests, is called at each step of a pass that a
// crash could interrupt.
var cleanerCrashHook func(step string)

func crashPoint(step string) {
	if cleanerCrashHook != nil {
		cleanerCrashHook(step)
	}
}

// Clean runs one pass of Kafka's Cleaner.doClean over [log start,
// FirstUncleanable): it maps the latest offset of each key of the dirty
// section (as many as the offset map holds), then rewrites the segments
// below the map's end group by group, each group into one segment swapped
// in with Kafka's .cleaned / .swap protocol. Appends and reads go on
// meanwhile; the write lock is held only for each swap.
func (l *Log) Clean(ctx context.Context, c Cleanable, set CleanerSettings, now time.Time) (CleanStats, error) {
	begin := time.Now()
	stats := CleanStats{EndOffset: c.FirstDirty}
	if c.FirstUncleanable <= c.FirstDirty {
		return stats, nil
	}
	offsets := newOffsetMap(set.DedupeBufferBytes)
	loadFactor := set.LoadFactor
	if loadFactor <= 0 || loadFactor > 1 {
		loadFactor = 0.9
	}
	capacity := int(float64(offsets.slots) * loadFactor)
	if capacity < 1 {
		return stats, fmt.Errorf("offset map of %d bytes is too small for one key: raise log.cleaner.dedupe.buffer.size", set.DedupeBufferBytes)
	}
	view, err := l.cleanerView(c.FirstDirty, c.FirstUncleanable)
	if err != nil {
		return stats, err
	}
	if err := l.buildOffsetMap(ctx, view, c, offsets, capacity, set, &stats); err != nil {
		return stats, l.abortedIfChanged(view, err)
	}
	end := offsets.latestOffset + 1
	if end <= c.FirstDirty {
		return stats, nil
	}
	txns := newCleanedTxns(nil)
	f := &recordFilter{nowMs: now.UnixMilli(), deleteRetentionMs: view.cfg.Compaction.DeleteRetention.Milliseconds(),
		offsets: offsets, txns: txns, roundEnd: c.FirstUncleanable, lastOfProducer: view.lastOfProducer}
	for _, group := range groupSegments(view, end, c.FirstUncleanable) {
		if err := l.cleanGroup(ctx, view, group, f, set, &stats); err != nil {
			return stats, l.abortedIfChanged(view, err)
		}
	}
	stats.EndOffset = end
	stats.BufferUtilization = offsets.utilization()
	stats.Elapsed = time.Since(begin)
	return stats, nil
}

// cleanerView is what a pass reads of the log, taken under the read lock:
// the inactive segments, their ends, and the producers' last batches.
type cleanerView struct {
	cfg      Config
	segments []*segment
	ends     []int64 // ends[i]: the base offset of the segment after segments[i]
	sizes    []int64
	// lastData: producer id -> offset of its last data batch, or -1 with
	// lastEpoch when a marker is all that is left of it.
	lastData  map[int64]int64
	lastEpoch map[int64]int16
	aborted   []AbortedTxn // of [log start, FirstUncleanable)
}

func (l *Log) cleanerView(firstDirty, firstUncleanable int64) (*cleanerView, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return nil, ErrCleaningAborted
	}
	v := &cleanerView{cfg: l.cfg, lastData: map[int64]int64{}, lastEpoch: map[int64]int16{}}
	for i, s := range l.segments[:len(l.segments)-1] {
		if s.baseOffset >= firstUncleanable {
			break
		}
		v.segments = append(v.segments, s)
		v.ends = append(v.ends, l.segments[i+1].baseOffset)
		v.sizes = append(v.sizes, s.size.Load())
	}
	for pid, e := range l.producers.producers {
		v.lastEpoch[pid] = e.epoch
		v.lastData[pid] = -1
		if b, ok := e.lastBatch(); ok {
			v.lastData[pid] = b.lastOffset
		}
	}
	v.aborted = l.collectAbortedTxns(nil, 0, 0, firstUncleanable)
	return v, nil
}

// abortedIfChanged turns err into ErrCleaningAborted when the log no
// longer holds all of the view's segments (retention, DeleteRecords or a
// truncation removed one while it was read): that is no fault of the
// partition's data.
func (l *Log) abortedIfChanged(v *cleanerView, err error) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return fmt.Errorf("%w: %v", ErrCleaningAborted, err)
	}
	for _, s := range v.segments {
		if !containsSegment(l.segments, s) {
			return fmt.Errorf("%w: %v", ErrCleaningAborted, err)
		}
	}
	return err
}

// lastOfProducer: b holds an active producer's last sequence (its last
// data batch) or, if it wrote only markers since, its last epoch.
func (v *cleanerView) lastOfProducer(b record.Batch) bool {
	last, ok := v.lastData[b.ProducerID()]
	if !ok {
		return false
	}
	if last >= 0 {
		return b.LastOffset() == last
	}
	return b.IsControl() && b.ProducerEpoch() == v.lastEpoch[b.ProducerID()]
}

func (v *cleanerView) abortedIn(from, to int64) []AbortedTxn {
	var out []AbortedTxn
	for _, a := range v.aborted {
		if a.LastOffset >= from && a.FirstOffset < to {
			out = append(out, a)
		}
	}
	return out
}

// forEachBatch calls fn with every batch of segments[i] and its position.
func (v *cleanerView) forEachBatch(i int, fn func(b record.Batch) error) error {
	s := v.segments[i]
	w := newBatchWindow(s, v.sizes[i])
	for pos := int64(0); pos < v.sizes[i]; {
		b, invalid, err := w.batchAt(pos)
		if err != nil {
			return err
		}
		if invalid != nil {
			return fmt.Errorf("segment %d of %s at position %d: %w", s.baseOffset, s.dir, pos, invalid)
		}
		if err := fn(b); err != nil {
			return err
		}
		pos += int64(len(b))
	}
	return nil
}

// buildOffsetMap is Kafka's Cleaner.buildOffsetMap: the dirty segments in
// order, batches of aborted transactions skipped, until the map holds
// capacity keys.
func (l *Log) buildOffsetMap(ctx context.Context, v *cleanerView, c Cleanable, m *offsetMap, capacity int, set CleanerSettings, stats *CleanStats) error {
	txns := newCleanedTxns(v.abortedIn(c.FirstDirty, c.FirstUncleanable))
	errFull := errors.New("offset map full")
	maxDecompressed := v.cfg.MaxDecompressedBytes
	for i, s := range v.segments {
		if v.ends[i] <= c.FirstDirty {
			continue
		}
		err := v.forEachBatch(i, func(b record.Batch) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := throttle(ctx, set, len(b)); err != nil {
				return err
			}
			stats.MapBytesRead += int64(len(b))
			if b.IsControl() {
				txns.onControlBatch(b)
			} else if !txns.onDataBatch(b) {
				data, err := b.Records(nil, maxDecompressed)
				if err != nil {
					return err
				}
				rr := record.NewRecordReader(data, b.RecordCount())
				var r record.Record
				for {
					if err := rr.Next(&r); err == io.EOF {
						break
					} else if err != nil {
						return err
					}
					off := b.BaseOffset() + int64(r.OffsetDelta)
					if r.Key != nil && off >= c.FirstDirty {
						if m.size() >= capacity {
							return errFull
						}
						m.put(r.Key, off)
					}
				}
			}
			if b.LastOffset() >= c.FirstDirty {
				m.updateLatestOffset(b.LastOffset())
			}
			return nil
		})
		if errors.Is(err, errFull) {
			l.logger.Debug("offset map full", "segment", s.baseOffset, "latestOffset", m.latestOffset)
			return nil
		}
		if err != nil {
			return err
		}
		// Offsets may have gaps (earlier cleaning): the map covers the
		// whole segment.
		m.updateLatestOffset(min(v.ends[i], c.FirstUncleanable) - 1)
	}
	return nil
}

func throttle(ctx context.Context, set CleanerSettings, n int) error {
	if set.Throttle == nil {
		return nil
	}
	return set.Throttle(ctx, n)
}

// groupSegments is Kafka's Cleaner.groupSegmentsBySize over the segments
// below end: adjacent segments are merged while their logs fit in
// segment.bytes, their indexes in segment.index.bytes, and their offsets
// in one segment's 32-bit relative offsets. It returns index ranges.
func groupSegments(v *cleanerView, end, firstUncleanable int64) [][2]int {
	n := 0
	for n < len(v.segments) && v.segments[n].baseOffset < end {
		n++
	}
	var groups [][2]int
	for i := 0; i < n; {
		j := i + 1
		logSize := v.sizes[i]
		idx, tidx := int64(v.segments[i].offsetIdx.count()*offsetIndexEntrySize), int64(v.segments[i].timeIdx.count()*timeIndexEntrySize)
		for j < n {
			s := v.segments[j]
			sIdx, sTidx := int64(s.offsetIdx.count()*offsetIndexEntrySize), int64(s.timeIdx.count()*timeIndexEntrySize)
			lastOffset := firstUncleanable - 1
			if j+1 < n {
				lastOffset = v.segments[j+1].baseOffset - 1
			}
			if logSize+v.sizes[j] > v.cfg.SegmentBytes || idx+sIdx > int64(v.cfg.SegmentIndexBytes) ||
				tidx+sTidx > int64(v.cfg.SegmentIndexBytes) ||
				(v.sizes[j] > 0 && lastOffset-v.segments[i].baseOffset > math.MaxInt32) {
				break
			}
			logSize += v.sizes[j]
			idx += sIdx
			tidx += sTidx
			j++
		}
		groups = append(groups, [2]int{i, j})
		i = j
	}
	return groups
}
