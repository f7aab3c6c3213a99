package log

import "sort"

// ProducerInfo describes an active producer of the partition, as
// DescribeProducers reports it (Kafka's ProducerStateEntry).
type ProducerInfo struct {
	ProducerID            int64
	ProducerEpoch         int16
	LastSequence          int32 // -1 if none is known
	LastTimestamp         int64 // -1 if none is known
	CoordinatorEpoch      int32 // -1 until a marker was written
	CurrentTxnStartOffset int64 // -1 when no transaction is open
}

// Producers lists the producers the partition keeps state for, by
// producer id.
func (l *Log) Producers() []ProducerInfo {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]ProducerInfo, 0, len(l.producers.producers))
	for pid, e := range l.producers.producers {
		lastSeq := int32(-1)
		if b, ok := e.lastBatch(); ok {
			lastSeq = b.lastSeq
		}
		out = append(out, ProducerInfo{ProducerID: pid, ProducerEpoch: e.epoch, LastSequence: lastSeq,
			LastTimestamp: e.lastTimestamp, CoordinatorEpoch: e.coordinatorEpoch,
			CurrentTxnStartOffset: e.currentTxnFirstOffset})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProducerID < out[j].ProducerID })
	return out
}

// OngoingTransaction is a transaction open in the partition.
type OngoingTransaction struct {
	ProducerID  int64
	FirstOffset int64
}

// OngoingTransactions lists the open transactions, oldest first. The
// first one's FirstOffset holds the last stable offset back.
func (l *Log) OngoingTransactions() []OngoingTransaction {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]OngoingTransaction, len(l.producers.ongoing))
	for i, t := range l.producers.ongoing {
		out[i] = OngoingTransaction{ProducerID: t.producerID, FirstOffset: t.firstOffset}
	}
	return out
}
