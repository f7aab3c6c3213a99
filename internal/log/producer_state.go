package log

import (
	"github.com/karst-broker/karst/internal/record"
)

// Origin says who wrote a batch; it decides which checks Append applies.
type Origin int8

const (
	// FromClient: a producer's Produce request. Sequence, epoch and
	// duplicate checks apply; control batches are rejected.
	FromClient Origin = iota
	// FromCoordinator: the broker's own coordinators (group offsets,
	// transaction markers). Control batches are allowed, sequences not checked.
	FromCoordinator
	// FromReplication: batches copied as they are (offsets kept); no checks.
	FromReplication
)

// batchesPerProducer is how many recent batches per producer are kept for
// duplicate detection; Kafka's producer retries at most five in flight.
const batchesPerProducer = 5

// batchMetadata describes one batch a producer wrote.
type batchMetadata struct {
	firstSeq, lastSeq       int32
	firstOffset, lastOffset int64
	timestamp               int64
}

// producerEntry is Kafka's ProducerStateEntry.
type producerEntry struct {
	producerID            int64
	epoch                 int16
	batches               [batchesPerProducer]batchMetadata // oldest first
	nBatches              int
	coordinatorEpoch      int32
	currentTxnFirstOffset int64 // -1 when no transaction is open
	lastTimestamp         int64
}

func newProducerEntry(pid int64) producerEntry {
	return producerEntry{producerID: pid, epoch: record.NoProducerEpoch, coordinatorEpoch: -1,
		currentTxnFirstOffset: -1, lastTimestamp: record.NoTimestamp}
}

func (e *producerEntry) lastBatch() (batchMetadata, bool) {
	if e.nBatches == 0 {
		return batchMetadata{}, false
	}
	return e.batches[e.nBatches-1], true
}

func (e *producerEntry) addBatch(m batchMetadata) {
	if e.nBatches == batchesPerProducer {
		copy(e.batches[:], e.batches[1:])
		e.nBatches--
	}
	e.batches[e.nBatches] = m
	e.nBatches++
}

func (e *producerEntry) findDuplicate(epoch int16, firstSeq, lastSeq int32) (batchMetadata, bool) {
	if epoch != e.epoch {
		return batchMetadata{}, false
	}
	for i := 0; i < e.nBatches; i++ {
		if e.batches[i].firstSeq == firstSeq && e.batches[i].lastSeq == lastSeq {
			return e.batches[i], true
		}
	}
	return batchMetadata{}, false
}

func inSequence(lastSeq, nextSeq int32) bool {
	return nextSeq == lastSeq+1 || (nextSeq == 0 && lastSeq == 0x7fffffff)
}

// check validates a batch against the entry, as Kafka's ProducerAppendInfo:
// older epoch -> ErrInvalidProducerEpoch; a new epoch must start at
// sequence 0 (unless the producer is unknown); otherwise the sequence must
// follow the last one.
func (e *producerEntry) check(b record.Batch, origin Origin) error {
	if origin == FromReplication {
		return nil
	}
	epoch := b.ProducerEpoch()
	if e.epoch != record.NoProducerEpoch && epoch < e.epoch {
		return ErrInvalidProducerEpoch
	}
	if origin != FromClient || b.IsControl() {
		return nil
	}
	firstSeq := b.BaseSequence()
	if epoch != e.epoch {
		if firstSeq != 0 && e.epoch != record.NoProducerEpoch {
			return ErrOutOfOrderSequence
		}
		return nil
	}
	last, ok := e.lastBatch()
	lastSeq := record.NoSequence
	if ok {
		lastSeq = last.lastSeq
	}
	if !inSequence(lastSeq, firstSeq) {
		return ErrOutOfOrderSequence
	}
	return nil
}

// update records a written batch.
func (e *producerEntry) update(b record.Batch) {
	epoch := b.ProducerEpoch()
	if epoch != e.epoch {
		e.epoch = epoch
		e.nBatches = 0
	}
	e.lastTimestamp = b.MaxTimestamp()
	if b.IsControl() {
		e.currentTxnFirstOffset = -1 // a commit or abort marker ends the transaction
		return
	}
	if b.IsTransactional() && e.currentTxnFirstOffset < 0 {
		e.currentTxnFirstOffset = b.BaseOffset()
	}
	e.addBatch(batchMetadata{firstSeq: b.BaseSequence(), lastSeq: b.LastSequence(),
		firstOffset: b.BaseOffset(), lastOffset: b.LastOffset(), timestamp: b.MaxTimestamp()})
}

// producerStateManager is the per-partition table of idempotent producers.
// Guarded by the Log's write lock.
type producerStateManager struct {
	producers map[int64]*producerEntry
}

func newProducerStateManager() *producerStateManager {
	return &producerStateManager{producers: make(map[int64]*producerEntry)}
}

// replay applies a batch read back from the log, without checks.
func (m *producerStateManager) replay(b record.Batch) {
	if !b.HasProducerID() {
		return
	}
	e := m.producers[b.ProducerID()]
	if e == nil {
		ne := newProducerEntry(b.ProducerID())
		e = &ne
		m.producers[b.ProducerID()] = e
	}
	e.update(b)
}

// removeExpired drops producers idle longer than expiration with no open transaction.
func (m *producerStateManager) removeExpired(nowMs int64, expirationMs int64) {
	for pid, e := range m.producers {
		if e.currentTxnFirstOffset < 0 && nowMs-e.lastTimestamp >= expirationMs {
			delete(m.producers, pid)
		}
	}
}

// pendingProducers stages producer updates of one Append so that several
// batches of one producer in a request check against each other, and
// nothing changes if the append fails. Small appends use the inline array.
type pendingProducers struct {
	inline [4]producerEntry
	list   []producerEntry
}

func (p *pendingProducers) reset() { p.list = p.inline[:0] }

func (p *pendingProducers) get(m *producerStateManager, pid int64) *producerEntry {
	for i := range p.list {
		if p.list[i].producerID == pid {
			return &p.list[i]
		}
	}
	if e := m.producers[pid]; e != nil {
		p.list = append(p.list, *e)
	} else {
		p.list = append(p.list, newProducerEntry(pid))
	}
	return &p.list[len(p.list)-1]
}

func (p *pendingProducers) commit(m *producerStateManager) {
	for i := range p.list {
		if cur := m.producers[p.list[i].producerID]; cur != nil {
			*cur = p.list[i]
		} else {
			e := p.list[i] // heap copy only for a new producer
			m.producers[e.producerID] = &e
		}
	}
}
