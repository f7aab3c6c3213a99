package log

import (
	"math"

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
	// clearVerification: the append being staged ends the producer's
	// verification in progress (verification.go).
	clearVerification bool
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

// check validates a data batch against the entry, as Kafka's
// ProducerAppendInfo: older epoch -> ErrInvalidProducerEpoch; a new epoch
// must start at sequence 0 (unless the producer is unknown); otherwise the
// sequence must follow the last one; a non-transactional batch while the
// producer's transaction is open -> ErrInvalidTxnState.
func (e *producerEntry) check(b record.Batch, origin Origin) error {
	if origin == FromReplication {
		return nil
	}
	epoch := b.ProducerEpoch()
	if e.epoch != record.NoProducerEpoch && epoch < e.epoch {
		return ErrInvalidProducerEpoch
	}
	if e.currentTxnFirstOffset >= 0 && !b.IsTransactional() {
		return ErrInvalidTxnState
	}
	if origin != FromClient {
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

// checkMarker validates a commit or abort marker, as Kafka's
// ProducerAppendInfo.appendEndTxnMarker. Under transaction version 2 the
// coordinator bumps the epoch for every marker, so a marker must carry a
// newer epoch than the partition has seen (one with the same epoch is a
// retry of a marker already written when no transaction is open, and
// allowed); before version 2 the same epoch is fine. A marker from an
// older coordinator epoch than the last one is fenced.
func (e *producerEntry) checkMarker(epoch int16, m record.Marker, txnVersion int8, origin Origin) error {
	if origin == FromReplication {
		return nil
	}
	invalid := epoch < e.epoch
	if txnVersion >= 2 {
		invalid = epoch <= e.epoch && !(epoch == e.epoch && e.currentTxnFirstOffset < 0)
	}
	if invalid {
		return ErrInvalidProducerEpoch
	}
	if e.coordinatorEpoch > m.CoordinatorEpoch {
		return ErrTransactionCoordinatorFenced
	}
	return nil
}

// update records a written batch; m is the marker a control batch carries
// (nil for data, and for a control batch emptied by compaction, which
// changes nothing). It returns where the producer's transaction began
// before this batch (-1 if none), so the caller can tell that the batch
// started or ended one.
func (e *producerEntry) update(b record.Batch, m *record.Marker) (prevTxnFirst int64) {
	prevTxnFirst = e.currentTxnFirstOffset
	if b.IsControl() && m == nil {
		return prevTxnFirst
	}
	epoch := b.ProducerEpoch()
	if epoch != e.epoch {
		e.epoch = epoch
		e.nBatches = 0
	}
	e.lastTimestamp = b.MaxTimestamp()
	if m != nil {
		e.currentTxnFirstOffset = -1 // a commit or abort marker ends the transaction
		e.coordinatorEpoch = m.CoordinatorEpoch
		return prevTxnFirst
	}
	if b.IsTransactional() && e.currentTxnFirstOffset < 0 {
		e.currentTxnFirstOffset = b.BaseOffset()
	}
	e.addBatch(batchMetadata{firstSeq: b.BaseSequence(), lastSeq: b.LastSequence(),
		firstOffset: b.BaseOffset(), lastOffset: b.LastOffset(), timestamp: b.MaxTimestamp()})
	return prevTxnFirst
}

// producerStateManager is the per-partition table of idempotent producers
// and of the transactions open in the partition (Kafka's ongoingTxns).
// Guarded by the Log's write lock.
type producerStateManager struct {
	producers map[int64]*producerEntry
	ongoing   []ongoingTxn // sorted by firstOffset
	// verifications are the transaction verifications in progress, by
	// producer id (verification.go).
	verifications map[int64]verification
}

// ongoingTxn is a transaction whose data is in the log and whose marker is
// not. Its first batch's place in the log is kept so that a read_committed
// fetch knows where to stop without scanning for it (position -1: not
// known yet, looked up when needed).
type ongoingTxn struct {
	producerID  int64
	firstOffset int64
	segmentBase int64
	position    int64
}

func newProducerStateManager() *producerStateManager {
	return &producerStateManager{producers: make(map[int64]*producerEntry), verifications: map[int64]verification{}}
}

// replay applies a batch read back from the log, without checks, at
// position pos of the segment based at segBase. m is the marker of a
// control batch. It returns the transaction the batch ended, if any.
func (m *producerStateManager) replay(b record.Batch, mk *record.Marker, segBase, pos int64) (ended completedTxn, ok bool) {
	if !b.HasProducerID() {
		return completedTxn{}, false
	}
	e := m.producers[b.ProducerID()]
	if e == nil {
		ne := newProducerEntry(b.ProducerID())
		e = &ne
		m.producers[b.ProducerID()] = e
	}
	prev := e.update(b, mk)
	switch {
	case mk != nil && prev >= 0:
		return completedTxn{producerID: b.ProducerID(), firstOffset: prev, lastOffset: b.BaseOffset(),
			aborted: mk.Type == record.ControlAbort}, true
	case !b.IsControl() && prev < 0 && e.currentTxnFirstOffset >= 0:
		m.begin(ongoingTxn{producerID: b.ProducerID(), firstOffset: e.currentTxnFirstOffset, segmentBase: segBase, position: pos})
	}
	return completedTxn{}, false
}

// completedTxn is a transaction that a marker ended (Kafka's CompletedTxn).
type completedTxn struct {
	producerID              int64
	firstOffset, lastOffset int64
	aborted                 bool
}

// begin adds an open transaction, keeping the list sorted (appends come in
// offset order, so this is an append in practice).
func (m *producerStateManager) begin(t ongoingTxn) {
	i := len(m.ongoing)
	for i > 0 && m.ongoing[i-1].firstOffset > t.firstOffset {
		i--
	}
	m.ongoing = append(m.ongoing, ongoingTxn{})
	copy(m.ongoing[i+1:], m.ongoing[i:])
	m.ongoing[i] = t
}

// complete removes the transaction c ended.
func (m *producerStateManager) complete(c completedTxn) {
	for i, t := range m.ongoing {
		if t.firstOffset == c.firstOffset && t.producerID == c.producerID {
			m.ongoing = append(m.ongoing[:i], m.ongoing[i+1:]...)
			return
		}
	}
}

// lastStableOffsetAfter is the LSO once c completes: the start of the
// oldest other open transaction, or the offset after c's marker (Kafka's
// ProducerStateManager.lastStableOffset). It goes into the txnindex entry.
func (m *producerStateManager) lastStableOffsetAfter(c completedTxn) int64 {
	for _, t := range m.ongoing {
		if t.producerID != c.producerID {
			return t.firstOffset
		}
	}
	return c.lastOffset + 1
}

// firstUnstableOffset is the first offset of the oldest open transaction,
// or math.MaxInt64 if none is open.
func (m *producerStateManager) firstUnstableOffset() int64 {
	if len(m.ongoing) == 0 {
		return math.MaxInt64
	}
	return m.ongoing[0].firstOffset
}

// rebuildOngoing derives the open transactions from the producers' entries
// (after a snapshot load); their positions are looked up later.
func (m *producerStateManager) rebuildOngoing() {
	m.ongoing = m.ongoing[:0]
	for pid, e := range m.producers {
		if e.currentTxnFirstOffset >= 0 {
			m.begin(ongoingTxn{producerID: pid, firstOffset: e.currentTxnFirstOffset, segmentBase: -1, position: -1})
		}
	}
}

// removeExpired drops producers idle longer than expiration with no open
// transaction, and verifications never followed by a write, as Kafka's
// removeExpiredProducers.
func (m *producerStateManager) removeExpired(nowMs int64, expirationMs int64) {
	for pid, e := range m.producers {
		if e.currentTxnFirstOffset < 0 && nowMs-e.lastTimestamp >= expirationMs {
			delete(m.producers, pid)
		}
	}
	for pid, v := range m.verifications {
		if nowMs-v.createdMs >= expirationMs {
			delete(m.verifications, pid)
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

// commit applies the staged entries; a producer whose transactional batch
// or marker was written has its verification done (Kafka's
// updateProducers).
func (p *pendingProducers) commit(m *producerStateManager) {
	for i := range p.list {
		if p.list[i].clearVerification {
			delete(m.verifications, p.list[i].producerID)
		}
		p.list[i].clearVerification = false
		if cur := m.producers[p.list[i].producerID]; cur != nil {
			*cur = p.list[i]
		} else {
			e := p.list[i] // heap copy only for a new producer
			m.producers[e.producerID] = &e
		}
	}
}
