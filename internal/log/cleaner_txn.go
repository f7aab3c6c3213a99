package log

import (
	"container/heap"

	"github.com/karst-broker/karst/internal/record"
)

// cleanedTxns follows transactions through one cleaning pass (Kafka's
// CleanedTransactionMetadata): which batches belong to aborted
// transactions (dropped whatever their keys) and which markers may go
// because nothing of their transaction is left before them.
type cleanedTxns struct {
	committing map[int64]bool             // producer ids with a committed transaction's batches seen
	aborting   map[int64]*abortedInFlight // producer ids inside an aborted transaction
	pending    abortedHeap                // aborted transactions not yet reached, by first offset
	// retained collects the aborted transactions whose marker the cleaned
	// segment keeps, for its .txnindex (nil while building the offset map).
	retained *[]AbortedTxn
}

type abortedInFlight struct {
	txn      AbortedTxn
	sawBatch bool
}

func newCleanedTxns(aborted []AbortedTxn) *cleanedTxns {
	t := &cleanedTxns{committing: map[int64]bool{}, aborting: map[int64]*abortedInFlight{}}
	t.add(aborted)
	return t
}

func (t *cleanedTxns) add(aborted []AbortedTxn) {
	for _, a := range aborted {
		heap.Push(&t.pending, a)
	}
}

func (t *cleanedTxns) reach(offset int64) {
	for len(t.pending) > 0 && t.pending[0].FirstOffset <= offset {
		a := heap.Pop(&t.pending).(AbortedTxn)
		if _, ok := t.aborting[a.ProducerID]; !ok {
			t.aborting[a.ProducerID] = &abortedInFlight{txn: a}
		}
	}
}

// onControlBatch reports whether the marker batch b may be discarded: an
// abort marker once no batch of its transaction remains before it, a
// commit marker when no batch of its transaction was seen, an empty
// (already cleaned) control batch always.
func (t *cleanedTxns) onControlBatch(b record.Batch) bool {
	t.reach(b.LastOffset())
	m, err := record.ParseMarker(b)
	if err != nil {
		return true // no control record left: cleaned before
	}
	pid := b.ProducerID()
	switch m.Type {
	case record.ControlAbort:
		a, ok := t.aborting[pid]
		delete(t.aborting, pid)
		if ok && a.sawBatch {
			if t.retained != nil {
				*t.retained = append(*t.retained, a.txn)
			}
			return false
		}
		return true
	case record.ControlCommit:
		saw := t.committing[pid]
		delete(t.committing, pid)
		return !saw
	}
	return false
}

// onDataBatch reports whether b belongs to an aborted transaction.
func (t *cleanedTxns) onDataBatch(b record.Batch) bool {
	t.reach(b.LastOffset())
	if !b.IsTransactional() {
		return false
	}
	if a, ok := t.aborting[b.ProducerID()]; ok {
		a.sawBatch = true
		return true
	}
	t.committing[b.ProducerID()] = true
	return false
}

type abortedHeap []AbortedTxn

func (h abortedHeap) Len() int           { return len(h) }
func (h abortedHeap) Less(i, j int) bool { return h[i].FirstOffset < h[j].FirstOffset }
func (h abortedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *abortedHeap) Push(x any)        { *h = append(*h, x.(AbortedTxn)) }
func (h *abortedHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
