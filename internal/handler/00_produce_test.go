package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/record"
)

// TestProduceAppliesBrokerCompressionType: a topic without its own
// compression.type takes the broker's, as in Kafka; the topic's override
// wins over it.
func TestProduceAppliesBrokerCompressionType(t *testing.T) {
	f := newAdminFixture(t, nil)
	settings, _, err := config.FromProperties(map[string]string{"node.id": "1", "compression.type": "gzip"})
	if err != nil {
		t.Fatal(err)
	}
	opts := f.b.opts
	opts.Settings, opts.LogConfigs = settings, nil
	b := NewBroker(opts)
	f.createTopic("plain", 1, nil)
	f.createTopic("own", 1, map[string]*string{"compression.type": strp("lz4")})
	for topic, want := range map[string]record.Codec{"plain": record.CodecGzip, "own": record.CodecLZ4} {
		if code := produceOne(t, b, topic, 1); code != 0 {
			t.Fatalf("%s: produce error %d", topic, code)
		}
		data, _, err := f.log(topic, 0).ReadBytes(nil, 0, 1<<20, true)
		if err != nil {
			t.Fatal(err)
		}
		stored, _, err := record.ParseBatch(data, len(data))
		if err != nil || stored.Codec() != want {
			t.Fatalf("%s: stored batch codec %v (%v); want %v", topic, stored.Codec(), err, want)
		}
	}
}

// produceOne sends one uncompressed one-record batch to partition 0 of
// topic with the given acks and returns the partition's error code.
func produceOne(t *testing.T, b *Broker, topic string, acks int16) int16 {
	t.Helper()
	return produceBatch(t, b, topic, acks, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}).ErrorCode
}

// produceBatch sends one one-record batch with the given producer fields
// to partition 0 of topic and returns the partition's answer.
// newProduceRequest is a Produce of one batch to one partition.
func newProduceRequest(topic string, partition int32, acks int16, transactionalID *string, batch []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.TransactionID, req.Acks, req.TimeoutMillis = transactionalID, acks, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = partition, batch
	rt.Partitions = []kmsg.ProduceRequestTopicPartition{rp}
	req.Topics = []kmsg.ProduceRequestTopic{rt}
	return req
}

func produceBatch(t *testing.T, b *Broker, topic string, acks int16, h record.BatchHeader) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	h.BaseTimestamp = time.Now().UnixMilli()
	batch, err := record.Build(nil, h, []record.Record{{Value: []byte("value")}})
	if err != nil {
		t.Fatal(err)
	}
	req := newProduceRequest(topic, 0, acks, nil, batch)
	req.SetVersion(9)
	out := b.Handle(context.Background(), Lookup(0), &Request{Header: wireHeader(0, 9), Body: req, Conn: &Conn{ListenerName: "PLAINTEXT"}})
	resp := out.Response
	if out.Later != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp = out.Later(ctx)
		cancel()
	}
	return resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
}

// TestProduceRefusesInvalidAcks: acks=2 (or any value but -1, 0, 1) is
// answered INVALID_REQUIRED_ACKS and appends nothing, as Kafka.
func TestProduceRefusesInvalidAcks(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	for _, acks := range []int16{2, -2, 5} {
		if code := produceOne(t, f.b, "t", acks); code != kerr.InvalidRequiredAcks.Code {
			t.Fatalf("acks=%d: error %d, want INVALID_REQUIRED_ACKS", acks, code)
		}
	}
	if leo := f.log("t", 0).LogEndOffset(); leo != 0 {
		t.Fatalf("%d records appended with invalid acks", leo)
	}
}

// TestProduceOutOfOrderSequenceAnswersLogStart: an append the log refuses
// (here OUT_OF_ORDER_SEQUENCE_NUMBER) answers the partition's log start
// offset, as Kafka does; an unknown partition answers -1.
func TestProduceOutOfOrderSequenceAnswersLogStart(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	idem := func(seq int32) kmsg.ProduceResponseTopicPartition {
		return produceBatch(t, f.b, "t", -1, record.BatchHeader{ProducerID: 9, ProducerEpoch: 0, BaseSequence: seq})
	}
	for seq := int32(0); seq < 3; seq++ {
		if p := idem(seq); p.ErrorCode != 0 {
			t.Fatalf("seq %d: error %d", seq, p.ErrorCode)
		}
	}
	if _, err := f.log("t", 0).DeleteRecords(2); err != nil {
		t.Fatal(err)
	}
	if p := idem(7); p.ErrorCode != kerr.OutOfOrderSequenceNumber.Code || p.LogStartOffset != 2 || p.BaseOffset != -1 {
		t.Fatalf("out of order: error %d, log start %d, base offset %d; want 45, 2, -1", p.ErrorCode, p.LogStartOffset, p.BaseOffset)
	}
	if p := produceBatch(t, f.b, "missing", -1, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}); p.LogStartOffset != -1 {
		t.Fatalf("unknown topic: log start %d", p.LogStartOffset)
	}
}
