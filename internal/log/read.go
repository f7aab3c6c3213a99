package log

import (
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

// ReadResult is what a fetch needs for one partition.
type ReadResult struct {
	Slice                // Length 0: nothing to return
	HighWatermark  int64 // as of the read
	LogStartOffset int64
	LogEndOffset   int64
	// FirstBatchIncomplete: maxBytes cut the first batch (possible only
	// without minOneBatch), so the slice holds no whole batch.
	FirstBatchIncomplete bool
}

// Read locates up to maxBytes of batches starting with the batch holding
// offset, never past the high watermark. With minOneBatch the first batch is
// returned whole even if larger than maxBytes (KIP-74). As in Kafka the
// slice may end inside a batch; clients drop the partial tail.
// offset outside [LogStartOffset, LogEndOffset] is ErrOffsetOutOfRange.
func (l *Log) Read(offset int64, maxBytes int, minOneBatch bool) (ReadResult, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed.Load() {
		return ReadResult{}, ErrClosed
	}
	res := ReadResult{HighWatermark: l.highWatermark.Load(), LogStartOffset: l.logStartOffset.Load(),
		LogEndOffset: l.logEndOffset.Load()}
	if offset < res.LogStartOffset || offset > res.LogEndOffset {
		return res, fmt.Errorf("%w: offset %d not in [%d, %d]", ErrOffsetOutOfRange, offset, res.LogStartOffset, res.LogEndOffset)
	}
	if offset >= res.HighWatermark {
		return res, nil
	}
	for i := l.segmentFor(offset); i < len(l.segments); i++ {
		s := l.segments[i]
		limit := s.size.Load() // the high watermark equals the log end here, so the whole file is readable
		startPos := int64(0)
		if offset > s.baseOffset {
			_, startPos = s.offsetIdx.lookup(offset)
		}
		pos, size, found, err := s.translateOffset(offset, startPos, limit)
		if err != nil {
			return res, err
		}
		if !found {
			continue
		}
		length := int64(maxBytes)
		if minOneBatch && size > length {
			length = size
		}
		length = min(length, limit-pos)
		res.FirstBatchIncomplete = length < size
		res.Slice = Slice{File: s.log, Position: pos, Length: max(length, 0)}
		return res, nil
	}
	return res, nil
}

// ReadBytes is Read followed by a copy of the bytes into dst (grown if
// needed), for listeners that cannot use sendfile (TLS) and for tests.
func (l *Log) ReadBytes(dst []byte, offset int64, maxBytes int, minOneBatch bool) ([]byte, ReadResult, error) {
	res, err := l.Read(offset, maxBytes, minOneBatch)
	if err != nil || res.Length == 0 {
		return dst[:0], res, err
	}
	if int64(cap(dst)) < res.Length {
		dst = make([]byte, res.Length)
	}
	dst = dst[:res.Length]
	n, err := res.File.ReadAt(dst, res.Position)
	if err != nil && int64(n) != res.Length {
		return dst[:0], res, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	return dst, res, nil
}

// segmentFor is the index of the last segment with baseOffset <= offset (0 if none).
func (l *Log) segmentFor(offset int64) int {
	i := sort.Search(len(l.segments), func(i int) bool { return l.segments[i].baseOffset > offset })
	return max(i-1, 0)
}
