package log

import (
	"errors"
	"fmt"
	"math"

	"github.com/karst-broker/karst/internal/record"
)

// errOffsetsOutOfOrder marks a batch whose offsets do not follow the one
// before it; recovery treats it like a corrupt batch.
var errOffsetsOutOfOrder = errors.New("batch offsets out of order")

// RecoveryChunkBytes is how much of a segment recovery reads at a time
// (exported for tests that place batches at its boundaries).
const RecoveryChunkBytes = 1 << 20

// recover validates every batch of the segment from position 0 (length,
// magic, CRC, increasing offsets), rebuilds both indexes the way append
// writes them, and truncates the file at the first invalid byte, as Kafka's
// LogSegment.recover does. Batches are judged one at a time, each read
// whole wherever it falls (see batchWindow), so how the file is read never
// decides what is valid. onBatch sees each valid batch (for producer
// state). It returns how many bytes were cut and why.
func (s *segment) recover(indexInterval, maxIndexBytes int, onBatch func(record.Batch)) (cut int64, why error, err error) {
	s.offsetIdx.truncateEntries(0)
	s.timeIdx.truncateEntries(0)
	if err := s.makeActive(maxIndexBytes); err != nil {
		return 0, nil, err
	}
	s.nextOffset = s.baseOffset
	s.maxTimestampSoFar = record.NoTimestamp
	s.offsetOfMaxTimestampSoFar = s.baseOffset
	s.rollingBasedTimestamp = record.NoTimestamp
	s.bytesSinceLastIndexEntry = 0

	fileSize := s.size.Load()
	w := newBatchWindow(s, fileSize)
	var valid int64
	prevLast := s.baseOffset - 1
	for valid < fileSize {
		b, invalid, err := w.batchAt(valid)
		if err != nil {
			return 0, nil, err
		}
		if invalid == nil && (b.BaseOffset() <= prevLast || b.LastOffsetDelta() < 0 || b.LastOffset()-s.baseOffset > math.MaxInt32) {
			invalid = fmt.Errorf("%w: batch [%d, %d] after offset %d", errOffsetsOutOfOrder, b.BaseOffset(), b.LastOffset(), prevLast)
		}
		if invalid != nil {
			why = &record.BatchError{Pos: int(valid), Err: invalid}
			break
		}
		s.indexBatch(b, valid, indexInterval)
		if onBatch != nil {
			onBatch(b)
		}
		prevLast = b.LastOffset()
		valid += int64(len(b))
	}
	if valid < fileSize {
		if err := s.log.Truncate(valid); err != nil {
			return 0, why, fmt.Errorf("%w: truncate %s: %v", ErrStorage, s.logPath(), err)
		}
		s.size.Store(valid)
		cut = fileSize - valid
	}
	_ = s.timeIdx.maybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, true)
	return cut, why, nil
}

// batchWindow reads a segment file through one buffer. A batch is always
// taken from bytes that hold all of it: when the buffer ends inside a
// batch, or inside the 17 bytes that give its size, the buffer is refilled
// from that batch's position (grown if the batch is larger).
type batchWindow struct {
	seg   *segment
	size  int64 // bytes of the file to judge
	buf   []byte
	start int64 // file position of buf[0]
	n     int64 // bytes of buf filled
}

func newBatchWindow(s *segment, size int64) *batchWindow {
	return &batchWindow{seg: s, size: size, buf: make([]byte, min(RecoveryChunkBytes, size))}
}

// batchAt returns the batch at pos. invalid says why the bytes at pos are
// not a whole valid batch (the recovery's reason to truncate); err is an
// I/O failure, which must not truncate anything.
func (w *batchWindow) batchAt(pos int64) (b record.Batch, invalid error, err error) {
	rest := w.size - pos
	if rest < record.LogOverhead+5 { // the size and the magic
		return nil, fmt.Errorf("%w: %d bytes left, a batch header needs %d", record.ErrTruncated, rest, record.HeaderSize), nil
	}
	head, err := w.bytes(pos, record.LogOverhead+5)
	if err != nil {
		return nil, nil, err
	}
	size, _, _ := record.PeekSize(head)
	switch {
	case size < record.HeaderSize || size > record.DefaultMaxBatchSize:
		return nil, fmt.Errorf("%w: %d bytes", record.ErrLengthOutOfRange, size), nil
	case size > rest:
		return nil, fmt.Errorf("%w: the batch needs %d bytes, %d are left", record.ErrTruncated, size, rest), nil
	}
	whole, err := w.bytes(pos, size)
	if err != nil {
		return nil, nil, err
	}
	if err := record.Validate(whole); err != nil {
		var be *record.BatchError
		if errors.As(err, &be) {
			return nil, be.Err, nil
		}
		return nil, err, nil
	}
	return record.Batch(whole), nil, nil
}

// bytes returns the n bytes at pos (pos+n must not pass the judged size).
func (w *batchWindow) bytes(pos, n int64) ([]byte, error) {
	if pos >= w.start && pos+n <= w.start+w.n {
		return w.buf[pos-w.start : pos-w.start+n], nil
	}
	if n > int64(len(w.buf)) {
		w.buf = make([]byte, n)
	}
	want := min(int64(len(w.buf)), w.size-pos)
	got, err := w.seg.log.ReadAt(w.buf[:want], pos)
	if int64(got) < n {
		return nil, fmt.Errorf("%w: read %s at %d: %d of %d bytes: %v", ErrStorage, w.seg.logPath(), pos, got, n, err)
	}
	w.start, w.n = pos, int64(got)
	return w.buf[:n], nil
}

// loadInactive fills in what an unrecovered segment below the recovery point
// needs (max timestamp, next offset), and reports whether its indexes look
// sound. nextBase is the base offset of the following segment.
func (s *segment) loadInactive(nextBase int64) error {
	size := s.size.Load()
	if err := s.offsetIdx.sanityCheck(size); err != nil {
		return err
	}
	if err := s.timeIdx.sanityCheck(); err != nil {
		return err
	}
	if size > 0 && s.timeIdx.count() == 0 {
		return errors.New("time index empty for a non-empty segment")
	}
	if s.timeIdx.count() > 0 {
		s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = s.timeIdx.lastEntry()
	}
	s.nextOffset = nextBase
	return nil
}
