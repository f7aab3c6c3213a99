package log

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// segmentSuffixes are the files of one segment, in the order a swap
// renames them.
var segmentSuffixes = []string{IndexSuffix, TimeIndexSuffix, TxnIndexSuffix, LogSuffix}

// newCleanedSegment opens an empty segment at base whose files carry the
// .cleaned suffix (Kafka's UnifiedLog.createNewCleanedSegment).
func newCleanedSegment(dir string, base int64, maxIndexBytes int) (*segment, error) {
	removeSuffixed(dir, base, CleanedSuffix)
	s := &segment{dir: dir, baseOffset: base, nextOffset: base,
		maxTimestampSoFar: record.NoTimestamp, offsetOfMaxTimestampSoFar: base,
		rollingBasedTimestamp: record.NoTimestamp, created: time.Now()}
	var err error
	if s.log, err = os.OpenFile(FileName(dir, base, LogSuffix)+CleanedSuffix, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
		return nil, err
	}
	if s.offsetIdx, err = openOffsetIndex(FileName(dir, base, IndexSuffix)+CleanedSuffix, base); err != nil {
		s.log.Close()
		return nil, err
	}
	if s.timeIdx, err = openTimeIndex(FileName(dir, base, TimeIndexSuffix)+CleanedSuffix, base); err != nil {
		s.offsetIdx.unmapAndClose()
		s.log.Close()
		return nil, err
	}
	s.txnIdx = &txnIndex{path: FileName(dir, base, TxnIndexSuffix) + CleanedSuffix}
	if err := s.makeActive(maxIndexBytes); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// removeSuffixed removes the segment files of base that end in suffix.
func removeSuffixed(dir string, base int64, suffix string) {
	for _, suf := range segmentSuffixes {
		_ = os.Remove(FileName(dir, base, suf) + suffix)
	}
}

// renameSuffixed renames the existing segment files of base from suffix
// from to suffix to.
func renameSuffixed(dir string, base int64, from, to string) error {
	for _, suf := range segmentSuffixes {
		name := FileName(dir, base, suf)
		if err := os.Rename(name+from, name+to); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// cleanGroup rewrites the segments group[0]..group[1]-1 of the view into
// one segment and swaps it in (Kafka's Cleaner.cleanSegments).
func (l *Log) cleanGroup(ctx context.Context, v *cleanerView, group [2]int, f *recordFilter, set CleanerSettings, stats *CleanStats) (err error) {
	base := v.segments[group[0]].baseOffset
	dst, err := newCleanedSegment(l.dir, base, v.cfg.SegmentIndexBytes)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	swapped := false
	defer func() {
		if !swapped {
			dst.closeFiles()
			removeSuffixed(l.dir, base, CleanedSuffix)
		}
	}()
	var retained []AbortedTxn
	f.txns.retained = &retained
	defer func() { f.txns.retained = nil }()
	var out []byte
	for i := group[0]; i < group[1]; i++ {
		f.txns.add(v.abortedIn(v.segments[i].baseOffset, v.ends[i]))
		err := v.forEachBatch(i, func(b record.Batch) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := throttle(ctx, set, len(b)); err != nil {
				return err
			}
			stats.BytesRead += int64(len(b))
			stats.MessagesRead += int64(b.RecordCount())
			var n int
			var err error
			if out, n, err = f.filterBatch(out[:0], b, v.cfg.MaxDecompressedBytes); err != nil {
				return err
			}
			stats.MessagesRetained += int64(n)
			if len(out) == 0 {
				return nil
			}
			stats.BytesWritten += int64(len(out))
			if err := dst.append(out, v.cfg.IndexIntervalBytes); err != nil {
				return err
			}
			return throttle(ctx, set, len(out))
		})
		if err != nil {
			return err
		}
		crashPoint("segment-cleaned")
	}
	for _, a := range retained {
		if err := dst.txnIdx.append(a); err != nil {
			return err
		}
	}
	if err := dst.onBecomeInactive(); err != nil {
		return err
	}
	if err := dst.sync(); err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	dst.closeFiles()
	swapped = true // closed: only the files are left to clean up
	// The cleaned segment keeps the modification time of the last segment
	// it replaces, as Kafka's does.
	if st, err := v.segments[group[1]-1].log.Stat(); err == nil {
		_ = os.Chtimes(FileName(l.dir, base, LogSuffix)+CleanedSuffix, st.ModTime(), st.ModTime())
	}
	crashPoint("cleaned-written")
	if err := l.swapIn(v, group); err != nil {
		removeSuffixed(l.dir, base, CleanedSuffix)
		removeSuffixed(l.dir, base, SwapSuffix)
		return err
	}
	return nil
}

// swapIn replaces the group's segments with the cleaned one in Kafka's
// order (LocalLog.replaceSegments): the cleaned files are renamed .swap,
// the old segments' files .deleted, then the .swap files to their final
// names; the directory is fsynced between steps. A crash anywhere leaves
// files that Open turns into either the old segments or the new one.
func (l *Log) swapIn(v *cleanerView, group [2]int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := v.segments[group[0]:group[1]]
	at := -1
	for i, s := range l.segments {
		if s == old[0] {
			at = i
			break
		}
	}
	if at < 0 || at+len(old) >= len(l.segments) || l.closed.Load() {
		return ErrCleaningAborted
	}
	for k, s := range old {
		if l.segments[at+k] != s {
			return ErrCleaningAborted
		}
	}
	base := old[0].baseOffset
	next := l.segments[at+len(old)].baseOffset
	if err := renameSuffixed(l.dir, base, CleanedSuffix, SwapSuffix); err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if err := syncDir(l.dir); err != nil {
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	crashPoint("swap-renamed")
	for _, s := range old {
		if err := s.retire(l.cfg.FileDeleteDelay); err != nil {
			l.failStorage("renaming a cleaned segment's files to .deleted", err)
			return fmt.Errorf("%w: %v", ErrStorage, err)
		}
		crashPoint("old-retired")
	}
	if err := renameSuffixed(l.dir, base, SwapSuffix, ""); err != nil {
		l.failStorage("renaming a cleaned segment's .swap files", err)
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if err := syncDir(l.dir); err != nil {
		l.failStorage("syncing the log dir after a swap", err)
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	crashPoint("swapped")
	s, err := openSegment(l.dir, base)
	if err == nil {
		err = s.loadInactive(next)
		if err != nil {
			s.closeFiles()
		}
	}
	if err != nil {
		l.failStorage("opening a cleaned segment", err)
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	segs := append(l.segments[:at:at], s)
	l.segments = append(segs, l.segments[at+len(old):]...)
	kept := l.toSync[:0]
	for _, t := range l.toSync {
		if !containsSegment(old, t) {
			kept = append(kept, t)
		}
	}
	l.toSync = kept
	return nil
}

func containsSegment(list []*segment, s *segment) bool {
	for _, t := range list {
		if t == s {
			return true
		}
	}
	return false
}

// retire renames the segment's files to .deleted (Kafka's
// asyncDeleteSegment) and removes them after delay; the .log descriptor
// stays open until then for reads already under way.
func (s *segment) retire(delay time.Duration) error {
	s.offsetIdx.unmapAndClose()
	s.timeIdx.unmapAndClose()
	s.txnIdx.closeFile()
	if err := renameSuffixed(s.dir, s.baseOffset, "", DeletedSuffix); err != nil {
		return err
	}
	dir, base, f := s.dir, s.baseOffset, s.log
	drop := func() {
		f.Close()
		removeSuffixed(dir, base, DeletedSuffix)
	}
	if delay <= 0 {
		drop()
	} else {
		time.AfterFunc(delay, drop)
	}
	return nil
}

// completeInterruptedSwaps is the start of Kafka's LogLoader.load: .cleaned
// files are dropped, and so is any .swap file at or past the lowest of
// them (part of an unfinished multi-segment swap); the remaining .swap
// segments replace every file whose offset lies in their range, and lose
// their suffix.
func (l *Log) completeInterruptedSwaps() error {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return err
	}
	minCleaned := int64(math.MaxInt64)
	var swaps []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, CleanedSuffix):
			if off, ok := fileOffset(name); ok {
				minCleaned = min(minCleaned, off)
			}
			l.logger.Warn("removing file of an interrupted cleaning", "file", name)
			_ = os.Remove(filepath.Join(l.dir, name))
		case strings.HasSuffix(name, SwapSuffix):
			swaps = append(swaps, name)
		}
	}
	valid := swaps[:0]
	for _, name := range swaps {
		if off, ok := fileOffset(name); !ok || off >= minCleaned {
			l.logger.Warn("removing swap file of an unfinished swap", "file", name)
			_ = os.Remove(filepath.Join(l.dir, name))
			continue
		}
		valid = append(valid, name)
	}
	if len(valid) == 0 {
		return nil
	}
	minSwap, maxSwap := int64(math.MaxInt64), int64(math.MinInt64)
	for _, name := range valid {
		if !strings.HasSuffix(name, LogSuffix+SwapSuffix) {
			continue
		}
		base, _ := fileOffset(name)
		next, err := nextOffsetOfFile(filepath.Join(l.dir, name), base)
		if err != nil {
			return err
		}
		minSwap, maxSwap = min(minSwap, base), max(maxSwap, next)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, SwapSuffix) || strings.HasSuffix(name, CleanedSuffix) {
			continue
		}
		if off, ok := fileOffset(name); ok && off >= minSwap && off < maxSwap {
			l.logger.Warn("deleting a segment file a swap replaces", "file", name)
			_ = os.Remove(filepath.Join(l.dir, name))
		}
	}
	for _, name := range valid {
		l.logger.Warn("completing an interrupted swap", "file", name)
		if err := os.Rename(filepath.Join(l.dir, name), filepath.Join(l.dir, strings.TrimSuffix(name, SwapSuffix))); err != nil {
			return err
		}
	}
	return syncDir(l.dir)
}

// fileOffset parses the 20-digit offset a segment-related file name starts with.
func fileOffset(name string) (int64, bool) {
	if len(name) < 21 || name[20] != '.' {
		return 0, false
	}
	off, err := strconv.ParseInt(name[:20], 10, 64)
	return off, err == nil && off >= 0
}

// nextOffsetOfFile is the offset after the last whole batch of a .log
// file (Kafka's LogSegment.readNextOffset), base for an empty one.
func nextOffsetOfFile(path string, base int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	next := base
	var head [record.HeaderSize]byte
	for pos := int64(0); pos+record.HeaderSize <= st.Size(); {
		if _, err := f.ReadAt(head[:], pos); err != nil {
			return 0, err
		}
		size, _, ok := record.PeekSize(head[:])
		if !ok || size < record.HeaderSize || pos+size > st.Size() {
			break
		}
		next = record.Batch(head[:]).NextOffset()
		pos += size
	}
	return next, nil
}
