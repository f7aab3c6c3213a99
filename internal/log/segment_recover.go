package log

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/karst-broker/karst/internal/record"
)

// errOffsetsOutOfOrder marks a batch whose offsets do not follow the one
// before it; recovery treats it like a corrupt batch.
var errOffsetsOutOfOrder = errors.New("batch offsets out of order")

const recoverChunk = 1 << 20

// recover validates every batch of the segment from position 0 (length,
// magic, CRC, increasing offsets), rebuilds both indexes the way append
// writes them, and truncates the file at the first invalid byte, as Kafka's
// LogSegment.recover does. onBatch sees each valid batch (for producer
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
	buf := make([]byte, min(int64(recoverChunk), fileSize))
	var valid int64
	prevLast := s.baseOffset - 1
	for valid < fileSize {
		want := min(int64(len(buf)), fileSize-valid)
		n, rerr := s.log.ReadAt(buf[:want], valid)
		if n == 0 {
			if rerr == nil {
				rerr = io.ErrUnexpectedEOF
			}
			return 0, nil, fmt.Errorf("%w: read %s: %v", ErrStorage, s.logPath(), rerr)
		}
		sp := record.NewSplitter(buf[:n], int(min(fileSize-valid, math.MaxInt32)))
		consumed := 0
		var stop error
		for {
			p := sp.Pos()
			b, err := sp.Next()
			if err != nil {
				stop = err
				break
			}
			if b == nil {
				break
			}
			if b.BaseOffset() <= prevLast || b.LastOffsetDelta() < 0 || b.LastOffset()-s.baseOffset > math.MaxInt32 {
				stop = fmt.Errorf("%w: batch [%d, %d] after offset %d", errOffsetsOutOfOrder, b.BaseOffset(), b.LastOffset(), prevLast)
				break
			}
			s.indexBatch(b, valid+int64(p), indexInterval)
			if onBatch != nil {
				onBatch(b)
			}
			prevLast = b.LastOffset()
			consumed = sp.Pos()
		}
		valid += int64(consumed)
		if stop == nil {
			continue
		}
		if errors.Is(stop, record.ErrTruncated) {
			// A batch that straddles the end of the buffer: read again from
			// it if the file really holds all of it.
			size, _, ok := record.PeekSize(buf[consumed:n])
			if ok && size >= record.HeaderSize && valid+size <= fileSize {
				grew := false
				if size > int64(len(buf)) {
					buf = make([]byte, size)
					grew = true
				}
				if consumed > 0 || grew {
					continue
				}
			}
		}
		why = stop
		break
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
