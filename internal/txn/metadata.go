package txn

import (
	"maps"
	"math"
)

// noEpoch is RecordBatch.NO_PRODUCER_EPOCH; noProducerID NO_PRODUCER_ID.
const (
	noEpoch      int16 = -1
	noProducerID int64 = -1
)

// txnMeta is one transactional id's state: Kafka's TransactionMetadata.
// It is guarded by its shard's lock and changed only by replay.
type txnMeta struct {
	id           string
	producerID   int64
	epoch        int16
	lastProducer int64 // the producer id before a rotation, for KIP-360 retries
	// nextProducer is the producer id a transaction version 2 commit or
	// abort that exhausted the epochs moves to once complete; -1 for none.
	nextProducer  int64
	lastEpoch     int16 // the epoch before the last bump, for retries of InitProducerId
	timeoutMs     int32
	state         State
	partitions    map[TopicPartition]struct{}
	startMs       int64 // when the open transaction began; -1 for none
	lastUpdateMs  int64
	clientVersion int16 // transaction version the client uses (0..2)
}

func newTxnMeta(id string, producerID int64, timeoutMs int32, nowMs int64) *txnMeta {
	return &txnMeta{id: id, producerID: producerID, epoch: noEpoch, lastProducer: noProducerID, nextProducer: noProducerID, lastEpoch: noEpoch,
		timeoutMs: timeoutMs, state: Empty, partitions: map[TopicPartition]struct{}{}, startMs: -1, lastUpdateMs: nowMs}
}

// clone copies m, for a transition prepared before its write is durable.
func (m *txnMeta) clone() *txnMeta {
	c := *m
	c.partitions = maps.Clone(m.partitions)
	return &c
}

// epochExhausted: one more bump would leave no epoch for fencing
// (Kafka's isProducerEpochExhausted).
func (m *txnMeta) epochExhausted() bool { return m.epoch >= math.MaxInt16-1 }

func (m *txnMeta) sortedPartitions() []TopicPartition {
	out := make([]TopicPartition, 0, len(m.partitions))
	for tp := range m.partitions {
		out = append(out, tp)
	}
	return groupByTopic(out)
}

// value is the record that persists m.
func (m *txnMeta) value() LogValue {
	v := LogValue{Version: valueV0, ProducerID: m.producerID, PreviousProducerID: -1, NextProducerID: -1,
		ProducerEpoch: m.epoch, TimeoutMs: m.timeoutMs, State: m.state, LastUpdateMs: m.lastUpdateMs,
		StartMs: m.startMs, ClientTransactionVersion: m.clientVersion}
	if m.state != Empty {
		v.Partitions = m.sortedPartitions()
	}
	if m.clientVersion >= 2 {
		v.Version = valueV1
		v.PreviousProducerID, v.NextProducerID = m.lastProducer, m.nextProducer
	}
	return v
}

// fromValue rebuilds a transactional id's state from its record.
func fromValue(id string, v LogValue) *txnMeta {
	m := newTxnMeta(id, v.ProducerID, v.TimeoutMs, v.LastUpdateMs)
	m.epoch = v.ProducerEpoch
	m.lastProducer, m.nextProducer = v.PreviousProducerID, v.NextProducerID
	m.state = v.State
	m.startMs = v.StartMs
	m.clientVersion = v.ClientTransactionVersion
	if v.State != Empty {
		for _, tp := range v.Partitions {
			m.partitions[tp] = struct{}{}
		}
	}
	return m
}
