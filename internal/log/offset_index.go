package log

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// offsetIndexEntrySize: relative offset int32 + physical position int32 (Kafka's OffsetIndex).
const offsetIndexEntrySize = 8

// offsetIndex is the sparse .index file: it maps a batch's last offset
// (relative to the segment base) to the byte position where the batch starts.
type offsetIndex struct{ *mmapIndex }

func openOffsetIndex(path string, baseOffset int64) (offsetIndex, error) {
	x, err := openIndex(path, baseOffset, offsetIndexEntrySize)
	return offsetIndex{x}, err
}

func (x offsetIndex) relOffset(i int) int64 {
	return int64(int32(binary.BigEndian.Uint32(x.entry(i))))
}
func (x offsetIndex) position(i int) int64 {
	return int64(int32(binary.BigEndian.Uint32(x.entry(i)[4:])))
}

// lookup returns the position of the indexed batch with the largest offset
// <= target, or position 0 when target precedes every entry.
func (x offsetIndex) lookup(target int64) (offset, position int64) {
	i := x.search(target-x.baseOffset, x.relOffset)
	if i < 0 {
		return x.baseOffset, 0
	}
	return x.baseOffset + x.relOffset(i), x.position(i)
}

// append adds an entry; callers only index increasing offsets.
func (x offsetIndex) append(offset, position int64) error {
	rel := offset - x.baseOffset
	if rel < 0 || rel > math.MaxInt32 || position > math.MaxInt32 {
		return fmt.Errorf("offset index %s: entry (%d, %d) out of range", x.path, offset, position)
	}
	n := x.count()
	if n > 0 && rel <= x.relOffset(n-1) {
		return nil
	}
	if n >= x.maxEntries() {
		return fmt.Errorf("offset index %s is full", x.path)
	}
	if err := x.guardedStore(n, func(e []byte) {
		binary.BigEndian.PutUint32(e, uint32(rel))
		binary.BigEndian.PutUint32(e[4:], uint32(position))
	}); err != nil {
		return err
	}
	x.entries.Store(int64(n + 1))
	return nil
}

// sanityCheck mirrors Kafka's checks plus strict ordering, which also
// catches preallocated zeros left by a crash.
func (x offsetIndex) sanityCheck(logSize int64) error {
	st, err := x.file.Stat()
	if err != nil {
		return err
	}
	if st.Size()%offsetIndexEntrySize != 0 {
		return fmt.Errorf("index %s: length %d not a multiple of %d", x.path, st.Size(), offsetIndexEntrySize)
	}
	prevRel, prevPos := int64(-1), int64(-1)
	for i := 0; i < x.count(); i++ {
		rel, pos := x.relOffset(i), x.position(i)
		if rel <= prevRel || pos < prevPos || rel < 0 || pos >= logSize {
			return fmt.Errorf("index %s: entry %d (%d, %d) out of order or past the log", x.path, i, rel, pos)
		}
		prevRel, prevPos = rel, pos
	}
	return nil
}

// offsetAtOrAfter is the offset of the first indexed batch that starts at
// or after position (Kafka's OffsetIndex.fetchUpperBoundOffset).
func (x offsetIndex) offsetAtOrAfter(position int64) (int64, bool) {
	n := x.count()
	i := sort.Search(n, func(i int) bool { return x.position(i) >= position })
	if i == n {
		return 0, false
	}
	return x.baseOffset + x.relOffset(i), true
}
