package log

import "crypto/md5"

// offsetMapEntryBytes is what one key costs in Kafka's SkimpyOffsetMap: an
// MD5 hash and an offset. log.cleaner.dedupe.buffer.size is spent at this
// rate, so the same buffer holds as many keys here as in Kafka, and a log
// needs as many cleaning passes.
const offsetMapEntryBytes = md5.Size + 8

// offsetMap maps the hash of each key in a log's dirty section to the
// offset of its latest record (Kafka's OffsetMap). Keys are hashed with
// MD5 as Kafka does, so two keys that collide in Kafka collide here.
type offsetMap struct {
	slots        int
	latestOffset int64
	offsets      map[[md5.Size]byte]int64
}

// newOffsetMap sizes the map for bufferBytes of dedupe buffer.
func newOffsetMap(bufferBytes int64) *offsetMap {
	slots := int(max(bufferBytes/offsetMapEntryBytes, 1))
	return &offsetMap{slots: slots, latestOffset: -1, offsets: make(map[[md5.Size]byte]int64)}
}

func (m *offsetMap) size() int { return len(m.offsets) }

func (m *offsetMap) put(key []byte, offset int64) {
	m.offsets[md5.Sum(key)] = offset
	m.latestOffset = offset
}

// get returns the latest offset recorded for key, or -1.
func (m *offsetMap) get(key []byte) int64 {
	if off, ok := m.offsets[md5.Sum(key)]; ok {
		return off
	}
	return -1
}

func (m *offsetMap) updateLatestOffset(offset int64) { m.latestOffset = offset }

// utilization is the share of slots in use (Kafka's buffer utilization metric).
func (m *offsetMap) utilization() float64 { return float64(len(m.offsets)) / float64(m.slots) }
