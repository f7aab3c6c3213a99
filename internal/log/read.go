package log

import (
	"errors"
	"fmt"
	"os"
	"sort"
)

// Slice locates bytes of a segment file; the server sends them with
// sendfile. The file stays open at least Config.FileDeleteDelay after its
// segment is deleted, so use it promptly and never close it.
type Slice struct {
	File     *os.File
	Position int64
	Length   int64
}

// Isolation is a fetch's isolation level, numbered as Kafka's.
type Isolation int8

const (
	// ReadUncommitted reads up to the high watermark.
	ReadUncommitted Isolation = 0
	// ReadCommitted reads up to the last stable offset and lists the
	// aborted transactions in what it returns.
	ReadCommitted Isolation = 1
)

// ReadResult is what a fetch needs for one partition.
type ReadResult struct {
	Slice                  // Length 0: nothing to return
	HighWatermark    int64 // as of the read
	LastStableOffset int64 // as of the read
	LogStartOffset   int64
	LogEndOffset     int64
	// FirstBatchIncomplete: maxBytes cut the first batch (possible only
	// without minOneBatch), so the slice holds no whole batch.
	FirstBatchIncomplete bool
	// AbortedTransactions (ReadCommitted only) are the aborted
	// transactions that overlap the slice, as Kafka lists them in a Fetch
	// response; nil when there are none.
	AbortedTransactions []AbortedTxn
}

// Read is ReadIsolated with ReadUncommitted.
func (l *Log) Read(offset int64, maxBytes int, minOneBatch bool) (ReadResult, error) {
	return l.ReadIsolated(offset, maxBytes, minOneBatch, ReadUncommitted)
}

// ReadIsolated locates up to maxBytes of batches starting with the batch
// holding offset, never past the high watermark (ReadUncommitted) or the
// last stable offset (ReadCommitted). With minOneBatch the first batch is
// returned whole even if larger than maxBytes (KIP-74). As in Kafka the
// slice may end inside a batch; clients drop the partial tail. offset
// outside [LogStartOffset, LogEndOffset] is ErrOffsetOutOfRange.
//
// A ReadCommitted read also collects the aborted transactions overlapping
// the slice, under the same lock, so a concurrent retention cannot take
// their index away between the two; it allocates only when there are some.
func (l *Log) ReadIsolated(offset int64, maxBytes int, minOneBatch bool, iso Isolation) (ReadResult, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return ReadResult{}, ErrClosed
	}
	if l.flush.offline.Load() {
		return ReadResult{}, l.storageFailure()
	}
	res := ReadResult{HighWatermark: l.highWatermark.Load(), LogStartOffset: l.logStartOffset.Load(),
		LogEndOffset: l.logEndOffset.Load()}
	res.LastStableOffset = lastStableOffset(l.firstUnstable.Load(), res.LogStartOffset, res.HighWatermark)
	if offset < res.LogStartOffset || offset > res.LogEndOffset {
		return res, fmt.Errorf("%w: offset %d not in [%d, %d]", ErrOffsetOutOfRange, offset, res.LogStartOffset, res.LogEndOffset)
	}
	end := res.HighWatermark
	if iso == ReadCommitted {
		end = res.LastStableOffset
	}
	if offset >= end {
		return res, nil
	}
	// The high watermark equals the log end here, so a segment is readable
	// to its end, except the one where an open transaction stops a
	// read_committed read.
	stopSeg, stopPos := int64(-1), int64(-1)
	if end < res.HighWatermark {
		stopSeg, stopPos = l.stablePosition(end)
	}
	for i := l.segmentFor(offset); i < len(l.segments); i++ {
		s := l.segments[i]
		limit := s.size.Load()
		if s.baseOffset == stopSeg {
			limit = stopPos
		}
		startPos := int64(0)
		if offset > s.baseOffset {
			_, startPos = s.offsetIdx.lookup(offset)
		}
		pos, size, found, err := s.translateOffset(offset, startPos, limit)
		if err != nil {
			// As Kafka's ReplicaManager: logged with the fetch, answered
			// with the error's code (CORRUPT_MESSAGE for a corrupt batch).
			l.logger.Error("error reading the log for a fetch", "offset", offset, "maxBytes", maxBytes, "err", err)
			if !errors.Is(err, ErrCorruptRecord) {
				l.failStorage(fmt.Sprintf("reading offset %d", offset), err)
			}
			return res, err
		}
		if !found {
			if s.baseOffset == stopSeg {
				return res, nil
			}
			continue
		}
		length := int64(maxBytes)
		if minOneBatch && size > length {
			length = size
		}
		length = min(length, limit-pos)
		res.FirstBatchIncomplete = length < size
		res.Slice = Slice{File: s.log, Position: pos, Length: max(length, 0)}
		if iso == ReadCommitted {
			upper := l.fetchUpperBound(i, pos+res.Length, end)
			res.AbortedTransactions = l.collectAbortedTxns(nil, i, offset, upper)
		}
		return res, nil
	}
	return res, nil
}

// stablePosition is where the batch at the last stable offset lso starts:
// the segment's base offset and the byte position in it. It is the first
// batch of the oldest open transaction, whose place Append remembered
// (searched for here when recovery could not tell it).
func (l *Log) stablePosition(lso int64) (segBase, pos int64) {
	if len(l.producers.ongoing) > 0 {
		if t := l.producers.ongoing[0]; t.firstOffset == lso && t.position >= 0 {
			return t.segmentBase, t.position
		}
	}
	s := l.segments[l.segmentFor(lso)]
	_, start := s.offsetIdx.lookup(lso)
	if p, _, found, err := s.translateOffset(lso, start, s.size.Load()); err == nil && found {
		return s.baseOffset, p
	}
	return s.baseOffset, s.size.Load()
}

// fetchUpperBound bounds the offsets in a slice of segment i that ends at
// byte end, as Kafka's fetchUpperBoundOffset: the offset of the first
// indexed batch at or past the end, else the next segment's base, and never
// more than limit (what the read may return).
func (l *Log) fetchUpperBound(i int, end, limit int64) int64 {
	s := l.segments[i]
	if off, ok := s.offsetIdx.offsetAtOrAfter(end); ok {
		return min(off, limit)
	}
	if i+1 < len(l.segments) {
		return min(l.segments[i+1].baseOffset, limit)
	}
	return limit
}

// collectAbortedTxns appends the aborted transactions overlapping
// [fetchOffset, upperBound) from the txnindex of segment i and later ones,
// stopping at the first entry whose LSO reached upperBound (Kafka's
// collectAbortedTransactions). Caller holds the read lock.
func (l *Log) collectAbortedTxns(dst []AbortedTxn, i int, fetchOffset, upperBound int64) []AbortedTxn {
	for ; i < len(l.segments); i++ {
		var complete bool
		if dst, complete = l.segments[i].txnIdx.collect(dst, fetchOffset, upperBound); complete {
			break
		}
	}
	return dst
}

// AbortedTransactions lists the aborted transactions that overlap
// [fetchOffset, upperBound): those whose abort marker is at or after
// fetchOffset and whose first offset is below upperBound.
func (l *Log) AbortedTransactions(fetchOffset, upperBound int64) []AbortedTxn {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return nil
	}
	return l.collectAbortedTxns(nil, l.segmentFor(fetchOffset), fetchOffset, upperBound)
}

// LastStableOffset is the end of what read_committed consumers may read:
// the first offset of the oldest open transaction (never below the log
// start offset), or the high watermark if that is smaller.
func (l *Log) LastStableOffset() int64 {
	return lastStableOffset(l.firstUnstable.Load(), l.logStartOffset.Load(), l.highWatermark.Load())
}

// ReadBytes is Read followed by a copy of the bytes into dst (grown if
// needed), for listeners that cannot use sendfile (TLS) and for tests.
func (l *Log) ReadBytes(dst []byte, offset int64, maxBytes int, minOneBatch bool) ([]byte, ReadResult, error) {
	return l.ReadBytesIsolated(dst, offset, maxBytes, minOneBatch, ReadUncommitted)
}

// ReadBytesIsolated is ReadIsolated followed by a copy into dst.
func (l *Log) ReadBytesIsolated(dst []byte, offset int64, maxBytes int, minOneBatch bool, iso Isolation) ([]byte, ReadResult, error) {
	res, err := l.ReadIsolated(offset, maxBytes, minOneBatch, iso)
	if err != nil || res.Length == 0 {
		return dst[:0], res, err
	}
	if int64(cap(dst)) < res.Length {
		dst = make([]byte, res.Length)
	}
	dst = dst[:res.Length]
	n, err := res.File.ReadAt(dst, res.Position)
	if err != nil && int64(n) != res.Length {
		closed := errors.Is(err, os.ErrClosed) // a segment deleted since, its file.delete.delay.ms over
		err = fmt.Errorf("%w: reading %s at %d: %v", ErrStorage, res.File.Name(), res.Position, err)
		if !closed {
			l.failStorage(fmt.Sprintf("reading offset %d", offset), err)
		}
		return dst[:0], res, err
	}
	return dst, res, nil
}

// segmentFor is the index of the last segment with baseOffset <= offset (0 if none).
func (l *Log) segmentFor(offset int64) int {
	i := sort.Search(len(l.segments), func(i int) bool { return l.segments[i].baseOffset > offset })
	return max(i-1, 0)
}
