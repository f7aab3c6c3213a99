package integration

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The kill-cycle test's record of what the broker acknowledged: records at
// the offsets their produce responses gave, transactions with the outcome
// EndTxn returned, and topics whose creation succeeded.

type recordKind byte

const (
	plainRecord      recordKind = 'P' // acks=all, idempotence off: may be duplicated, never lost
	idempotentRecord recordKind = 'I'
	txnRecord        recordKind = 'T'
)

// recordID names a record; its value is derived from it, so a read-back
// value is checked byte for byte.
type recordID struct {
	kind  recordKind
	cycle int32
	txn   int32 // the transaction's number within its cycle; -1 outside one
	seq   int32
}

func (id recordID) value() []byte {
	head := fmt.Sprintf("%c|%d|%d|%d|", id.kind, id.cycle, id.txn, id.seq)
	size := 100 + int(uint32(id.cycle)*7919+uint32(id.seq)*104729)%1900
	switch id.kind {
	case plainRecord:
		// Large enough that the topic with 1 MiB segments rolls about
		// once a second.
		size = 1000 + size*37%7000
	case idempotentRecord:
		// Batches of one or two small records: a record batch starts near
		// every byte position, across recovery's read-chunk boundaries too.
		size = 40 + size%360
	}
	v := make([]byte, size)
	copy(v, head)
	fill := byte('a' + (id.cycle+id.seq)%26)
	for i := len(head); i < size; i++ {
		v[i] = fill
	}
	return v
}

func parseRecordID(v []byte) (recordID, error) {
	var id recordID
	var kind byte
	if _, err := fmt.Sscanf(string(v[:min(len(v), 64)]), "%c|%d|%d|%d|", &kind, &id.cycle, &id.txn, &id.seq); err != nil {
		return id, fmt.Errorf("value %q is not the test's: %v", v[:min(len(v), 40)], err)
	}
	id.kind = recordKind(kind)
	if !bytes.Equal(v, id.value()) {
		return id, fmt.Errorf("value of %c|%d|%d|%d (%d bytes) differs from what was produced", kind, id.cycle, id.txn, id.seq, len(v))
	}
	return id, nil
}

type topicPartition struct {
	topic     string
	partition int32
}

type txnKey struct{ cycle, txn int32 }

type txnOutcome int

const (
	txnOpen      txnOutcome = iota
	txnCommitted            // EndTxn(commit) succeeded, or a read showed it whole
	txnAborted              // EndTxn(abort) succeeded, or a read showed none of it
	txnUndecided            // EndTxn failed or was never sent: the broker decides
)

type txnState struct {
	outcome txnOutcome
	acked   map[recordID]int64 // offset in the record's partition
	parts   map[recordID]topicPartition
}

type killLedger struct {
	mu        sync.Mutex
	acked     map[topicPartition]map[int64]recordID
	maxAcked  map[topicPartition]int64
	txns      map[txnKey]*txnState
	topics    map[string]int // created topic: partitions
	ackedRecs int64
}

func newKillLedger() *killLedger {
	return &killLedger{acked: map[topicPartition]map[int64]recordID{}, maxAcked: map[topicPartition]int64{},
		txns: map[txnKey]*txnState{}, topics: map[string]int{}}
}

// ack records a produce acknowledgement.
func (l *killLedger) ack(r *kgo.Record, id recordID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tp := topicPartition{r.Topic, r.Partition}
	m := l.acked[tp]
	if m == nil {
		m = map[int64]recordID{}
		l.acked[tp] = m
	}
	m[r.Offset] = id
	if max, ok := l.maxAcked[tp]; !ok || r.Offset > max {
		l.maxAcked[tp] = r.Offset
	}
	l.ackedRecs++
	if id.kind == txnRecord {
		tx := l.txns[txnKey{id.cycle, id.txn}]
		tx.acked[id] = r.Offset
		tx.parts[id] = tp
	}
}

func (l *killLedger) beginTxn(k txnKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.txns[k] = &txnState{acked: map[recordID]int64{}, parts: map[recordID]topicPartition{}}
}

func (l *killLedger) endTxn(k txnKey, o txnOutcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.txns[k].outcome = o
}

func (l *killLedger) topicCreated(name string, partitions int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.topics[name] = partitions
}

// settleOpenTxns marks the transactions a kill interrupted as undecided.
func (l *killLedger) settleOpenTxns() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, tx := range l.txns {
		if tx.outcome == txnOpen {
			tx.outcome = txnUndecided
		}
	}
}

func (l *killLedger) txnOutcomes() (committed, aborted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, tx := range l.txns {
		switch tx.outcome {
		case txnCommitted:
			committed++
		case txnAborted:
			aborted++
		}
	}
	return committed, aborted
}
