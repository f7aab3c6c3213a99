package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
)

// The aborted-transaction index (<base>.txnindex), in Kafka's
// TransactionIndex format: a flat array of 34-byte big-endian entries
//
//	version int16 (0) | producerId int64 | firstOffset int64 |
//	lastOffset int64 | lastStableOffset int64
//
// one per transaction aborted by a marker in the segment, in marker order.
// lastOffset is the marker's offset; lastStableOffset is the LSO the
// partition had right after the abort, which lets a reader stop scanning
// once an entry's LSO reaches the end of what it fetched.
//
// As in Kafka the file is created only when the segment's first abort is
// written: most segments never have one.
const (
	txnIndexVersion   = 0
	txnIndexEntrySize = 2 + 8 + 8 + 8 + 8
)

// AbortedTxn is an entry of the aborted-transaction index.
type AbortedTxn struct {
	ProducerID       int64
	FirstOffset      int64
	LastOffset       int64 // the abort marker's offset
	LastStableOffset int64 // the partition's LSO right after the abort
}

var errCorruptTxnIndex = errors.New("corrupt transaction index")

func appendAbortedTxn(dst []byte, a AbortedTxn) []byte {
	be := binary.BigEndian
	dst = be.AppendUint16(dst, txnIndexVersion)
	dst = be.AppendUint64(dst, uint64(a.ProducerID))
	dst = be.AppendUint64(dst, uint64(a.FirstOffset))
	dst = be.AppendUint64(dst, uint64(a.LastOffset))
	return be.AppendUint64(dst, uint64(a.LastStableOffset))
}

// decodeTxnIndex parses a whole .txnindex file. It refuses a length that is
// not a whole number of entries, an unknown version, and entries whose
// offsets are inconsistent (first > last, or last not increasing), which is
// what a torn or foreign file looks like.
func decodeTxnIndex(buf []byte) ([]AbortedTxn, error) {
	if len(buf)%txnIndexEntrySize != 0 {
		return nil, fmt.Errorf("%w: length %d is not a multiple of %d", errCorruptTxnIndex, len(buf), txnIndexEntrySize)
	}
	be := binary.BigEndian
	out := make([]AbortedTxn, 0, len(buf)/txnIndexEntrySize)
	prevLast := int64(-1)
	for p := 0; p+txnIndexEntrySize <= len(buf); p += txnIndexEntrySize {
		e := buf[p : p+txnIndexEntrySize]
		if v := be.Uint16(e); v != txnIndexVersion {
			return nil, fmt.Errorf("%w: entry %d has version %d", errCorruptTxnIndex, p/txnIndexEntrySize, v)
		}
		a := AbortedTxn{
			ProducerID:       int64(be.Uint64(e[2:])),
			FirstOffset:      int64(be.Uint64(e[10:])),
			LastOffset:       int64(be.Uint64(e[18:])),
			LastStableOffset: int64(be.Uint64(e[26:])),
		}
		if a.FirstOffset < 0 || a.FirstOffset > a.LastOffset || a.LastOffset <= prevLast {
			return nil, fmt.Errorf("%w: entry %d offsets [%d, %d] after %d", errCorruptTxnIndex, p/txnIndexEntrySize, a.FirstOffset, a.LastOffset, prevLast)
		}
		prevLast = a.LastOffset
		out = append(out, a)
	}
	return out, nil
}

// txnIndex is a segment's aborted-transaction index: the entries in memory
// (readers scan them under the Log's read lock; only Append, under the
// write lock, adds to them) and the file, opened on first append.
//
// fileMu guards file and dirty against the flusher, which fsyncs without
// the Log's lock.
type txnIndex struct {
	path    string
	entries []AbortedTxn

	fileMu sync.Mutex
	file   *os.File
	dirty  bool
}

// loadTxnIndex reads an existing .txnindex (an absent file is an empty index).
func loadTxnIndex(path string) (*txnIndex, error) {
	x := &txnIndex{path: path}
	buf, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return x, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := decodeTxnIndex(buf)
	if err != nil {
		return x, err
	}
	x.entries = entries
	return x, nil
}

// append writes an entry at the end of the file (created if needed).
// Entries must come in increasing lastOffset order.
func (x *txnIndex) append(a AbortedTxn) error {
	if n := len(x.entries); n > 0 && x.entries[n-1].LastOffset >= a.LastOffset {
		return fmt.Errorf("%w: abort at %d after one at %d", errCorruptTxnIndex, a.LastOffset, x.entries[n-1].LastOffset)
	}
	var buf [txnIndexEntrySize]byte
	appendAbortedTxn(buf[:0], a)
	x.fileMu.Lock()
	defer x.fileMu.Unlock()
	if x.file == nil {
		f, err := os.OpenFile(x.path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrStorage, err)
		}
		x.file = f
	}
	if _, err := x.file.WriteAt(buf[:], int64(len(x.entries))*txnIndexEntrySize); err != nil {
		return fmt.Errorf("%w: write %s: %v", ErrStorage, x.path, err)
	}
	x.dirty = true
	x.entries = append(x.entries, a)
	return nil
}

// reset empties the index and removes its file, before recovery rebuilds it.
func (x *txnIndex) reset() error {
	x.fileMu.Lock()
	defer x.fileMu.Unlock()
	x.entries = nil
	if x.file != nil {
		x.file.Close()
		x.file = nil
	}
	x.dirty = false
	if err := os.Remove(x.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// sync fsyncs the file if entries were written since the last sync.
func (x *txnIndex) sync() error {
	x.fileMu.Lock()
	defer x.fileMu.Unlock()
	if x.file == nil || !x.dirty {
		return nil
	}
	if err := x.file.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	x.dirty = false
	return nil
}

func (x *txnIndex) close() error {
	err := x.sync()
	x.fileMu.Lock()
	defer x.fileMu.Unlock()
	if x.file != nil {
		if e := x.file.Close(); err == nil {
			err = e
		}
		x.file = nil
	}
	return err
}

// collect adds to dst the aborted transactions that overlap
// [fetchOffset, upperBound), as Kafka's TransactionIndex.collectAbortedTxns;
// complete is true once an entry shows that no later segment can hold
// more (its LSO reached upperBound).
func (x *txnIndex) collect(dst []AbortedTxn, fetchOffset, upperBound int64) ([]AbortedTxn, bool) {
	for _, a := range x.entries {
		if a.LastOffset >= fetchOffset && a.FirstOffset < upperBound {
			dst = append(dst, a)
		}
		if a.LastStableOffset >= upperBound {
			return dst, true
		}
	}
	return dst, false
}

// sanityCheck: every entry's abort marker lies in the segment [base, next).
func (x *txnIndex) sanityCheck(base, next int64) error {
	for i, a := range x.entries {
		if a.LastOffset < base || a.LastOffset >= next {
			return fmt.Errorf("%w: entry %d marker offset %d outside segment [%d, %d)", errCorruptTxnIndex, i, a.LastOffset, base, next)
		}
	}
	return nil
}

// closeFile closes the file without syncing, for a segment being deleted.
func (x *txnIndex) closeFile() {
	x.fileMu.Lock()
	defer x.fileMu.Unlock()
	if x.file != nil {
		x.file.Close()
		x.file = nil
	}
	x.dirty = false
}
