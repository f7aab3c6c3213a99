package log

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/karst-broker/karst/internal/record"
)

// timeIndexEntrySize: timestamp int64 + relative offset int32 (Kafka's TimeIndex).
const timeIndexEntrySize = 12

// timeIndex is the .timeindex file: entries of (max timestamp so far, offset
// of the batch holding it), appended only when the timestamp grows.
type timeIndex struct{ *mmapIndex }

func openTimeIndex(path string, baseOffset int64) (timeIndex, error) {
	x, err := openIndex(path, baseOffset, timeIndexEntrySize)
	return timeIndex{x}, err
}

func (x timeIndex) timestamp(i int) int64 { return int64(binary.BigEndian.Uint64(x.entry(i))) }
func (x timeIndex) relOffset(i int) int64 {
	return int64(int32(binary.BigEndian.Uint32(x.entry(i)[8:])))
}

// lastEntry is the newest (timestamp, offset), or (NoTimestamp, baseOffset).
func (x timeIndex) lastEntry() (int64, int64) {
	if n := x.count(); n > 0 {
		return x.timestamp(n - 1), x.baseOffset + x.relOffset(n-1)
	}
	return record.NoTimestamp, x.baseOffset
}

// lookup returns the entry with the largest timestamp <= target, or
// (NoTimestamp, baseOffset) when there is none.
func (x timeIndex) lookup(target int64) (int64, int64) {
	i := x.search(target, x.timestamp)
	if i < 0 {
		return record.NoTimestamp, x.baseOffset
	}
	return x.timestamp(i), x.baseOffset + x.relOffset(i)
}

// maybeAppend adds an entry when timestamp is newer than the last one.
// skipFull is used when the segment becomes inactive: the index was sized
// with room for one final entry only if it is not full, so it is grown by one.
func (x timeIndex) maybeAppend(timestamp, offset int64, skipFull bool) error {
	n := x.count()
	lastTS, lastOff := x.lastEntry() // (NoTimestamp, base) when empty, so -1 is never indexed
	if n > 0 && offset < lastOff {
		return fmt.Errorf("time index %s: offset %d before last %d", x.path, offset, lastOff)
	}
	if timestamp <= lastTS {
		return nil
	}
	rel := offset - x.baseOffset
	if rel < 0 || rel > math.MaxInt32 {
		return fmt.Errorf("time index %s: offset %d out of range", x.path, offset)
	}
	if n >= x.maxEntries() {
		if !skipFull {
			return fmt.Errorf("time index %s is full", x.path)
		}
		if err := x.resize((n + 1) * timeIndexEntrySize); err != nil {
			return err
		}
	}
	if err := x.guardedStore(n, func(e []byte) {
		binary.BigEndian.PutUint64(e, uint64(timestamp))
		binary.BigEndian.PutUint32(e[8:], uint32(rel))
	}); err != nil {
		return err
	}
	x.entries.Store(int64(n + 1))
	return nil
}

// isFull keeps one slot free, as Kafka's TimeIndex does, for the final
// entry written when the segment becomes inactive.
func (x timeIndex) isFull() bool { return x.count() >= x.maxEntries()-1 }

func (x timeIndex) sanityCheck() error {
	st, err := x.file.Stat()
	if err != nil {
		return err
	}
	if st.Size()%timeIndexEntrySize != 0 {
		return fmt.Errorf("time index %s: length %d not a multiple of %d", x.path, st.Size(), timeIndexEntrySize)
	}
	prevTS, prevRel := int64(math.MinInt64), int64(-1)
	for i := 0; i < x.count(); i++ {
		ts, rel := x.timestamp(i), x.relOffset(i)
		if ts <= prevTS || rel < prevRel || rel < 0 {
			return fmt.Errorf("time index %s: entry %d (%d, %d) out of order", x.path, i, ts, rel)
		}
		prevTS, prevRel = ts, rel
	}
	return nil
}
