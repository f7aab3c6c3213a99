package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/karst-broker/karst/internal/record"
)

// Producer snapshot files (NNN.snapshot, NNN = the log end offset when
// taken) in Kafka's ProducerStateManager format, version 1:
//
//	version int16 | crc uint32 (CRC32C of everything after it) | count int32 |
//	count x { producerId int64, epoch int16, lastSequence int32, lastOffset int64,
//	          offsetDelta int32, timestamp int64, coordinatorEpoch int32,
//	          currentTxnFirstOffset int64 }
const (
	snapshotVersion   = 1
	snapshotHeader    = 2 + 4 + 4
	snapshotEntrySize = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8
)

var errCorruptSnapshot = errors.New("corrupt producer snapshot")

func encodeSnapshot(m *producerStateManager) []byte {
	pids := make([]int64, 0, len(m.producers))
	for pid := range m.producers {
		pids = append(pids, pid)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	buf := make([]byte, snapshotHeader+len(pids)*snapshotEntrySize)
	be := binary.BigEndian
	be.PutUint16(buf, snapshotVersion)
	be.PutUint32(buf[6:], uint32(len(pids)))
	p := snapshotHeader
	for _, pid := range pids {
		e := m.producers[pid]
		lastSeq, lastOffset, delta := record.NoSequence, int64(-1), int32(0)
		if b, ok := e.lastBatch(); ok {
			lastSeq, lastOffset, delta = b.lastSeq, b.lastOffset, int32(b.lastOffset-b.firstOffset)
		}
		be.PutUint64(buf[p:], uint64(pid))
		be.PutUint16(buf[p+8:], uint16(e.epoch))
		be.PutUint32(buf[p+10:], uint32(lastSeq))
		be.PutUint64(buf[p+14:], uint64(lastOffset))
		be.PutUint32(buf[p+22:], uint32(delta))
		be.PutUint64(buf[p+26:], uint64(e.lastTimestamp))
		be.PutUint32(buf[p+34:], uint32(e.coordinatorEpoch))
		be.PutUint64(buf[p+38:], uint64(e.currentTxnFirstOffset))
		p += snapshotEntrySize
	}
	be.PutUint32(buf[2:], record.CRC32C(buf[6:]))
	return buf
}

func decodeSnapshot(buf []byte) (map[int64]*producerEntry, error) {
	be := binary.BigEndian
	if len(buf) < snapshotHeader {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header", errCorruptSnapshot, len(buf))
	}
	if v := be.Uint16(buf); v != snapshotVersion {
		return nil, fmt.Errorf("%w: unknown version %d", errCorruptSnapshot, v)
	}
	if be.Uint32(buf[2:]) != record.CRC32C(buf[6:]) {
		return nil, fmt.Errorf("%w: crc mismatch", errCorruptSnapshot)
	}
	n := int64(int32(be.Uint32(buf[6:])))
	if n < 0 || int64(len(buf)-snapshotHeader) != n*snapshotEntrySize {
		return nil, fmt.Errorf("%w: bad entry count", errCorruptSnapshot)
	}
	out := make(map[int64]*producerEntry, n)
	for p := snapshotHeader; p < len(buf); p += snapshotEntrySize {
		pid := int64(be.Uint64(buf[p:]))
		e := newProducerEntry(pid)
		e.epoch = int16(be.Uint16(buf[p+8:]))
		lastSeq := int32(be.Uint32(buf[p+10:]))
		lastOffset := int64(be.Uint64(buf[p+14:]))
		delta := int32(be.Uint32(buf[p+22:]))
		e.lastTimestamp = int64(be.Uint64(buf[p+26:]))
		e.coordinatorEpoch = int32(be.Uint32(buf[p+34:]))
		e.currentTxnFirstOffset = int64(be.Uint64(buf[p+38:]))
		if lastOffset >= 0 && delta >= 0 {
			firstSeq := lastSeq
			if lastSeq >= 0 {
				firstSeq = decrementSequence(lastSeq, delta)
			}
			e.addBatch(batchMetadata{firstSeq: firstSeq, lastSeq: lastSeq,
				firstOffset: lastOffset - int64(delta), lastOffset: lastOffset, timestamp: e.lastTimestamp})
		}
		out[pid] = &e
	}
	return out, nil
}

func decrementSequence(seq, delta int32) int32 {
	if seq < delta {
		return 0x7fffffff - (delta - seq) + 1
	}
	return seq - delta
}

// writeSnapshot writes NNN.snapshot atomically (temp file, fsync, rename).
func (m *producerStateManager) writeSnapshot(dir string, offset int64) error {
	return writeFileAtomic(FileName(dir, offset, SnapshotSuffix), encodeSnapshot(m))
}

// listSnapshots returns the snapshot offsets in dir, ascending.
func listSnapshots(dir string) ([]int64, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*"+SnapshotSuffix))
	if err != nil {
		return nil, err
	}
	var offs []int64
	for _, n := range names {
		if off, ok := parseOffsetName(filepath.Base(n), SnapshotSuffix); ok {
			offs = append(offs, off)
		}
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	return offs, nil
}

// deleteSnapshotsBefore removes snapshots older than offset.
func deleteSnapshotsBefore(dir string, offset int64) {
	offs, _ := listSnapshots(dir)
	for _, o := range offs {
		if o < offset {
			_ = os.Remove(FileName(dir, o, SnapshotSuffix))
		}
	}
}
