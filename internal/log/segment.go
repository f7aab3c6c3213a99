package log

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// segment is one LogSegment: a .log file of batches as stored plus its
// .index and .timeindex. Appends happen only on the active (last) segment,
// under the Log's write lock; size is published atomically after the bytes
// and index entries are written, so a reader never looks past it.
type segment struct {
	dir        string
	baseOffset int64
	log        *os.File
	size       atomic.Int64
	offsetIdx  offsetIndex
	timeIdx    timeIndex
	txnIdx     *txnIndex
	// txnIdxErr: the .txnindex found at open could not be read; recovery
	// rebuilds it.
	txnIdxErr error
	// rebuildTxnIdx: recovery emptied the txnindex and the producer state
	// replay at Open refills it.
	rebuildTxnIdx bool

	// Guarded by the Log's lock (written under the write lock).
	nextOffset                int64 // offset after the last batch in the segment
	maxTimestampSoFar         int64
	offsetOfMaxTimestampSoFar int64
	rollingBasedTimestamp     int64 // max timestamp of the first batch; NoTimestamp if empty
	created                   time.Time
	bytesSinceLastIndexEntry  int
	unsyncedIndexes           bool // index files changed since their last fsync
	// indexErr: an index entry could not be stored (a full disk); the
	// segment's indexes are incomplete until recovery rebuilds them.
	indexErr error
}

func (s *segment) logPath() string { return FileName(s.dir, s.baseOffset, LogSuffix) }

// createSegment makes a new empty segment whose indexes are preallocated.
func createSegment(dir string, base int64, maxIndexBytes int, now time.Time) (*segment, error) {
	// A leftover file from an earlier life of this offset would corrupt the new segment.
	for _, suf := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix} {
		if err := os.Remove(FileName(dir, base, suf)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	s, err := openSegment(dir, base)
	if err != nil {
		return nil, err
	}
	s.created = now
	if err := s.makeActive(maxIndexBytes); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// openSegment opens the files of an existing (or new) segment without
// validating them.
func openSegment(dir string, base int64) (*segment, error) {
	s := &segment{dir: dir, baseOffset: base, nextOffset: base,
		maxTimestampSoFar: record.NoTimestamp, offsetOfMaxTimestampSoFar: base,
		rollingBasedTimestamp: record.NoTimestamp}
	var err error
	if s.log, err = os.OpenFile(s.logPath(), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return nil, err
	}
	st, err := s.log.Stat()
	if err != nil {
		s.log.Close()
		return nil, err
	}
	s.size.Store(st.Size())
	s.created = st.ModTime()
	if s.offsetIdx, err = openOffsetIndex(FileName(dir, base, IndexSuffix), base); err != nil {
		s.log.Close()
		return nil, err
	}
	if s.timeIdx, err = openTimeIndex(FileName(dir, base, TimeIndexSuffix), base); err != nil {
		s.offsetIdx.unmapAndClose()
		s.log.Close()
		return nil, err
	}
	if s.txnIdx, s.txnIdxErr = loadTxnIndex(FileName(dir, base, TxnIndexSuffix)); s.txnIdx == nil {
		s.timeIdx.unmapAndClose()
		s.offsetIdx.unmapAndClose()
		s.log.Close()
		return nil, s.txnIdxErr
	}
	return s, nil
}

// makeActive preallocates the indexes to segment.index.bytes, as Kafka does
// for the segment being appended to.
func (s *segment) makeActive(maxIndexBytes int) error {
	if err := s.offsetIdx.resize(maxIndexBytes); err != nil {
		return err
	}
	return s.timeIdx.resize(maxIndexBytes)
}

// onBecomeInactive writes the final time index entry and trims both indexes.
func (s *segment) onBecomeInactive() error {
	if err := s.timeIdx.maybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, true); err != nil {
		return err
	}
	if err := s.offsetIdx.trim(); err != nil {
		return err
	}
	s.unsyncedIndexes = true
	return s.timeIdx.trim()
}

// shouldRoll mirrors Kafka's LogSegment.shouldRoll.
func (s *segment) shouldRoll(cfg *Config, incomingBytes int, maxOffsetInBatches int64, firstBatchMaxTS int64, now time.Time) bool {
	size := s.size.Load()
	if size > cfg.SegmentBytes-int64(incomingBytes) {
		return size > 0 // an oversized batch still goes into an empty segment
	}
	if size > 0 {
		// As Kafka's timeWaitedForRoll: with a first-batch timestamp, the
		// age is the incoming batch's timestamp minus it (record time, not
		// wall-clock time, so old timestamps do not roll every append).
		ref := s.rollingBasedTimestamp
		var waited time.Duration
		if ref >= 0 {
			waited = time.Duration(firstBatchMaxTS-ref) * time.Millisecond
		} else {
			waited = now.Sub(s.created)
		}
		if waited > cfg.SegmentTime {
			return true
		}
	}
	if s.offsetIdx.isFull() || s.timeIdx.isFull() {
		return true
	}
	return maxOffsetInBatches-s.baseOffset > math.MaxInt32 || maxOffsetInBatches < s.baseOffset
}

// append writes batches (offsets already assigned, validated) at the end of
// the segment and adds index entries every indexInterval bytes. The index
// blocks the batches can need are reserved first, so a full disk fails the
// append before any byte is written rather than in a store to the mapping.
func (s *segment) append(data []byte, indexInterval int) error {
	if err := s.reserveIndexes(len(data)); err != nil {
		return err
	}
	pos := s.size.Load()
	if err := s.writeAt(data, pos); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return fmt.Errorf("%w: write %s at %d: %v", ErrStorage, s.logPath(), pos, err)
	}
	sp := record.NewSplitter(data, 0)
	sp.SkipCRC = true
	for {
		b, err := sp.Next()
		if err != nil || b == nil {
			break
		}
		s.indexBatch(b, pos, indexInterval)
		pos += int64(len(b))
	}
	if s.indexErr != nil {
		return s.indexErr
	}
	s.size.Store(pos)
	return nil
}

// reserveIndexes reserves index blocks for the entries an append of n
// bytes can add: at most one per batch, and no batch is shorter than its
// header.
func (s *segment) reserveIndexes(n int) error {
	batches := n/record.HeaderSize + 1
	if err := s.offsetIdx.reserve(s.offsetIdx.count() + batches); err != nil {
		return err
	}
	return s.timeIdx.reserve(s.timeIdx.count() + batches)
}

// writeAt writes data at pos of the .log file; an injected fault lands half
// of it first, as a write cut short by a full disk.
func (s *segment) writeAt(data []byte, pos int64) error {
	if err := s.fault(opWriteLog); err != nil {
		_, _ = s.log.WriteAt(data[:len(data)/2], pos)
		return err
	}
	_, err := s.log.WriteAt(data, pos)
	return err
}

// indexBatch updates timestamps and index entries for a batch at pos; shared
// by append and recovery so both leave the same index bytes behind.
func (s *segment) indexBatch(b record.Batch, pos int64, indexInterval int) {
	last := b.LastOffset()
	if s.rollingBasedTimestamp == record.NoTimestamp && pos == 0 {
		s.rollingBasedTimestamp = b.MaxTimestamp()
	}
	if ts := b.MaxTimestamp(); ts > s.maxTimestampSoFar {
		s.maxTimestampSoFar = ts
		s.offsetOfMaxTimestampSoFar = last
	}
	if s.bytesSinceLastIndexEntry > indexInterval {
		// A full index is prevented by the roll check; a storage error
		// (a full disk) is kept for the caller.
		s.noteIndexErr(s.offsetIdx.append(last, pos))
		s.noteIndexErr(s.timeIdx.maybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, false))
		s.bytesSinceLastIndexEntry = 0
	}
	s.bytesSinceLastIndexEntry += len(b)
	s.nextOffset = last + 1
	s.unsyncedIndexes = true
}

// fault is the injected fault for op on the segment's .log, if any; the
// file name is only built when an injector is set.
func (s *segment) fault(op storageOp) error {
	if faults.Load() == nil {
		return nil
	}
	return injectedFault(op, s.logPath())
}

func (s *segment) noteIndexErr(err error) {
	if err != nil && s.indexErr == nil && errors.Is(err, ErrStorage) {
		s.indexErr = err
	}
}

// headerPool holds scratch buffers for reading batch headers from files.
var headerPool = sync.Pool{New: func() any { return new([record.HeaderSize]byte) }}

// readHeader reads the fixed header of the batch at pos (bounded by limit).
func (s *segment) readHeader(pos, limit int64, buf *[record.HeaderSize]byte) (record.Batch, error) {
	if limit-pos < record.HeaderSize {
		return nil, io.ErrUnexpectedEOF
	}
	if err := s.fault(opReadLog); err != nil {
		return nil, err
	}
	if _, err := s.log.ReadAt(buf[:], pos); err != nil {
		return nil, err
	}
	return record.Batch(buf[:]), nil
}

// translateOffset finds the first batch at or after startPos whose last
// offset is >= target, scanning headers up to limit. found is false if the
// segment holds no such batch. A header whose length is shorter than a
// header or runs past the end of the file is ErrCorruptRecord (Kafka's
// FileLogInputStream throws CorruptRecordException for the first), naming
// the file and the position.
func (s *segment) translateOffset(target, startPos, limit int64) (pos int64, size int64, found bool, err error) {
	buf := headerPool.Get().(*[record.HeaderSize]byte)
	defer headerPool.Put(buf)
	for pos = startPos; pos < limit; pos += size {
		h, err := s.readHeader(pos, limit, buf)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, 0, false, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("%w: reading %s at %d: %v", ErrStorage, s.logPath(), pos, err)
		}
		size = int64(h.BatchLength()) + record.LogOverhead
		if size < record.HeaderSize || pos+size > s.size.Load() {
			return 0, 0, false, fmt.Errorf("%w: batch length %d at position %d of %s (%d bytes)",
				ErrCorruptRecord, h.BatchLength(), pos, s.logPath(), s.size.Load())
		}
		if h.LastOffset() >= target {
			return pos, size, true, nil
		}
	}
	return 0, 0, false, nil
}

// sync fsyncs the records and the aborted-transaction index, which must
// be as durable as the abort markers it describes: recovery rebuilds it
// only for segments past the recovery point.
func (s *segment) sync() error { return s.syncWith(nil) }

// syncWith is sync with the segment file's fsync shared through syncer
// (nil: alone).
func (s *segment) syncWith(syncer *DirSyncer) error {
	if err := s.fault(opSyncLog); err != nil {
		return err
	}
	if err := syncer.Sync(s.log); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return s.txnIdx.sync()
}

// syncIndexes flushes index files, needed once the segment is below the
// recovery point because recovery will not rebuild them.
func (s *segment) syncIndexes() error {
	if err := s.offsetIdx.sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	if err := s.timeIdx.sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// close trims the indexes (Kafka leaves clean, trimmed files on shutdown).
func (s *segment) close() error {
	// As Kafka's LogSegment.close: the largest timestamp so far goes into
	// the time index, so a broker that trusts the indexes after a clean
	// shutdown (Kafka does) finds it.
	var err error
	if s.maxTimestampSoFar != record.NoTimestamp {
		err = s.timeIdx.maybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, true)
	}
	if e := s.offsetIdx.close(); err == nil {
		err = e
	}
	if e := s.timeIdx.close(); err == nil {
		err = e
	}
	if e := s.txnIdx.close(); err == nil {
		err = e
	}
	if e := s.log.Close(); err == nil {
		err = e
	}
	return err
}

func (s *segment) closeFiles() {
	s.offsetIdx.unmapAndClose()
	s.timeIdx.unmapAndClose()
	if s.txnIdx != nil {
		_ = s.txnIdx.close()
	}
	s.log.Close()
}

// remove deletes the segment's files. The indexes are unmapped now (only
// lookups under the Log lock use them); the .log descriptor stays open for
// delay so in-flight sendfile calls from earlier Reads finish, which works
// because an unlinked file stays readable while open.
func (s *segment) remove(delay time.Duration) error {
	var firstErr error
	for _, suf := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix} {
		if err := os.Remove(FileName(s.dir, s.baseOffset, suf)); err != nil && !errors.Is(err, os.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	s.offsetIdx.unmapAndClose()
	s.timeIdx.unmapAndClose()
	s.txnIdx.closeFile()
	f := s.log
	if delay <= 0 {
		f.Close()
	} else {
		time.AfterFunc(delay, func() { f.Close() })
	}
	return firstErr
}
