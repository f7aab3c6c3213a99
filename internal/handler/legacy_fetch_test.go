package handler

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/record/legacy"
)

// oldMessage is what an old consumer makes of one message it fetched.
type oldMessage struct {
	magic     int8
	offset    int64
	timestamp int64
	key       string
	value     string
}

// oldConsumerRead reads a fetched MessageSet with kmsg's MessageV0/V1
// decoders (not Karst's; wrappers are opened by legacy.Decompress, which
// reads magic 0's lz4 frames), as a 0.10 consumer does: whole messages until a
// partial one, wrappers opened, magic 1 inner offsets made absolute.
func oldConsumerRead(t testing.TB, set []byte) []oldMessage {
	t.Helper()
	var out []oldMessage
	for len(set) >= 12 {
		size := 12 + int(int32(binary.BigEndian.Uint32(set[8:])))
		if size < 12 || size > len(set) {
			break
		}
		var m oldMessage
		var attrs int8
		var value []byte
		switch set[16] {
		case 0:
			var v kmsg.MessageV0
			if err := v.ReadFrom(set[:size]); err != nil {
				t.Fatal(err)
			}
			m = oldMessage{0, v.Offset, record.NoTimestamp, string(v.Key), string(v.Value)}
			attrs, value = v.Attributes, v.Value
		case 1:
			var v kmsg.MessageV1
			if err := v.ReadFrom(set[:size]); err != nil {
				t.Fatal(err)
			}
			m = oldMessage{1, v.Offset, v.Timestamp, string(v.Key), string(v.Value)}
			attrs, value = v.Attributes, v.Value
		default:
			t.Fatalf("magic %d in a down-converted set", set[16])
		}
		set = set[size:]
		if codec := record.Codec(attrs & 7); codec != record.CodecNone {
			raw, err := legacy.Decompress(codec, value, 1<<26)
			if err != nil {
				t.Fatal(err)
			}
			inner := oldConsumerRead(t, raw)
			for i := range inner {
				if m.magic == 1 {
					inner[i].offset += m.offset - int64(len(inner)-1)
				}
			}
			out = append(out, inner...)
			continue
		}
		out = append(out, m)
	}
	return out
}

func legacyFetchRequest(topic string, offset int64, partitionMax int32) *kmsg.FetchRequest {
	req := fetchRequest(topic, offset, 0, 1, 0)
	req.Topics[0].Partitions[0].PartitionMaxBytes = partitionMax
	return req
}

func (f *adminFixture) appendBatch(topic string, h record.BatchHeader, rs []record.Record) {
	f.t.Helper()
	b, err := record.Build(nil, h, rs)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.log(topic, 0).Append(b, klog.AppendOptions{Origin: klog.FromClient}); err != nil {
		f.t.Fatal(err)
	}
}

// TestFetchDownConvertsToEachVersionsMagic: v0-1 read magic 0 messages, v2-3
// magic 1 with the records' timestamps; keys and values as produced,
// headers dropped, compressed batches as wrappers of their codec.
func TestFetchDownConvertsToEachVersionsMagic(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("new", 1, nil)
	h := record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
	var want []oldMessage
	for i, codec := range []record.Codec{record.CodecNone, record.CodecGzip, record.CodecSnappy, record.CodecLZ4} {
		h.Codec = codec
		rs := []record.Record{
			{TimestampDelta: 1, Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "v%d-a", i), Headers: []record.Header{{Key: []byte("h"), Value: []byte("x")}}},
			{TimestampDelta: 2, OffsetDelta: 1, Value: fmt.Appendf(nil, "v%d-b", i)},
		}
		f.appendBatch("new", h, rs)
		want = append(want, oldMessage{0, int64(2 * i), 1_700_000_000_001, fmt.Sprintf("k%d", i), fmt.Sprintf("v%d-a", i)},
			oldMessage{0, int64(2*i + 1), 1_700_000_000_002, "", fmt.Sprintf("v%d-b", i)})
	}
	ctx := testContext(t)
	for v := int16(0); v <= 3; v++ {
		got := f.consumeLegacy(ctx, "new", v, 8)
		magic := downConvertedMagic(v)
		exp := make([]oldMessage, len(want))
		for i, m := range want {
			m.magic = magic
			if magic == 0 {
				m.timestamp = record.NoTimestamp
			}
			exp[i] = m
		}
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Fatalf("v%d read\n%v\nwant\n%v", v, got, exp)
		}
	}
}

// consumeLegacy fetches from offset 0 as an old consumer does, from the
// offset after the last whole message each time (a converted set larger
// than the slice it came from is cut), until it has read to end.
func (f *adminFixture) consumeLegacy(ctx context.Context, topic string, v int16, end int64) []oldMessage {
	f.t.Helper()
	var got []oldMessage
	for next := int64(0); next < end; {
		p := f.fetchOn(ctx, legacyFetchRequest(topic, next, 1<<20), v).Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.HighWatermark != end {
			f.t.Fatalf("v%d: error %d high watermark %d", v, p.ErrorCode, p.HighWatermark)
		}
		read := oldConsumerRead(f.t, p.RecordBatches)
		if len(read) == 0 {
			f.t.Fatalf("v%d: nothing read at %d", v, next)
		}
		for _, m := range read {
			if m.offset >= next {
				got = append(got, m)
			}
		}
		next = read[len(read)-1].offset + 1
	}
	return got
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestFetchDownConversionDropsMarkersAndAbortedData: the old versions
// have no isolation level; their consumers get committed and
// non-transactional records, never a marker or an aborted record.
func TestFetchDownConversionDropsMarkersAndAbortedData(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("txn", 1, nil)
	f.appendTxnForFetch("txn", 7, 0, 2) // 0-1 committed
	f.appendMarkerForFetch("txn", 7, 0, record.ControlCommit)
	f.appendTxnForFetch("txn", 8, 0, 3) // 3-5 aborted
	f.appendBatch("txn", record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		[]record.Record{{Value: []byte("plain")}}) // 6
	f.appendMarkerForFetch("txn", 8, 0, record.ControlAbort)
	resp := f.fetchOn(testContext(t), legacyFetchRequest("txn", 0, 1<<20), 2)
	var offsets []int64
	for _, m := range oldConsumerRead(t, resp.Topics[0].Partitions[0].RecordBatches) {
		offsets = append(offsets, m.offset)
	}
	if fmt.Sprint(offsets) != "[0 1 6]" {
		t.Fatalf("offsets %v, want the committed and plain records", offsets)
	}
}

// TestFetchDownConversionRefusals: message.downconversion.enable=false
// answers UNSUPPORTED_VERSION, a zstd topic UNSUPPORTED_COMPRESSION_TYPE,
// as Kafka 3.x; Fetch v4 of the same topics is served.
func TestFetchDownConversionRefusals(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("off", 1, map[string]*string{"message.downconversion.enable": strp("false")})
	f.createTopic("zstd", 1, map[string]*string{"compression.type": strp("zstd")})
	f.createTopic("zstd-batches", 1, nil)
	h := record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
	f.appendBatch("off", h, []record.Record{{Value: []byte("v")}})
	f.appendBatch("zstd", h, []record.Record{{Value: []byte("v")}})
	h.Codec = record.CodecZstd
	f.appendBatch("zstd-batches", h, []record.Record{{Value: []byte("v")}})
	ctx := testContext(t)
	for topic, want := range map[string]int16{"off": kerr.UnsupportedVersion.Code, "zstd": kerr.UnsupportedCompressionType.Code,
		"zstd-batches": kerr.UnsupportedCompressionType.Code} {
		for _, v := range []int16{0, 3} {
			p := f.fetchOn(ctx, legacyFetchRequest(topic, 0, 1<<20), v).Topics[0].Partitions[0]
			if p.ErrorCode != want || len(p.RecordBatches) != 0 {
				t.Errorf("%s v%d: error %d with %d bytes, want %d", topic, v, p.ErrorCode, len(p.RecordBatches), want)
			}
		}
		if p := f.fetchOn(ctx, legacyFetchRequest(topic, 0, 1<<20), 4).Topics[0].Partitions[0]; p.ErrorCode != 0 || len(p.RecordBatches) == 0 {
			t.Errorf("%s v4: error %d", topic, p.ErrorCode)
		}
	}
}

// TestFetchOversizedFirstBatch is Kafka 3.x's answer to a first batch
// larger than the partition's max bytes: v0-2 cut it, and the consumer
// gets max bytes of a message it cannot finish (the 0.10 consumer raises
// RecordTooLargeException); v3 gets the first batch whole (KIP-74).
func TestFetchOversizedFirstBatch(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("big", 1, nil)
	big := make([]byte, 10_000)
	f.appendBatch("big", record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		[]record.Record{{Value: big}})
	ctx := testContext(t)
	for _, v := range []int16{0, 2} {
		p := f.fetchOn(ctx, legacyFetchRequest("big", 0, 1000), v).Topics[0].Partitions[0]
		if p.ErrorCode != 0 || len(p.RecordBatches) != 1000 || len(oldConsumerRead(t, p.RecordBatches)) != 0 {
			t.Fatalf("v%d: error %d, %d bytes", v, p.ErrorCode, len(p.RecordBatches))
		}
	}
	p := f.fetchOn(ctx, legacyFetchRequest("big", 0, 1000), 3).Topics[0].Partitions[0]
	if got := oldConsumerRead(t, p.RecordBatches); p.ErrorCode != 0 || len(got) != 1 || len(got[0].value) != len(big) {
		t.Fatalf("v3: error %d, %d messages", p.ErrorCode, len(got))
	}
}

// TestFetchDownConversionBrokerSwitch: Kafka 3.x's broker key
// log.message.downconversion.enable, set as the cluster-wide dynamic
// default, turns Fetch v0-3 off for every topic without an override of
// its own, and a topic's message.downconversion.enable=true overrides it.
func TestFetchDownConversionBrokerSwitch(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("plain", 1, nil)
	f.createTopic("kept", 1, map[string]*string{"message.downconversion.enable": strp("true")})
	h := record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
	for _, topic := range []string{"plain", "kept"} {
		f.appendBatch(topic, h, []record.Record{{Value: []byte("v")}})
	}
	ctx := testContext(t)
	fetchError := func(topic string) int16 {
		return f.fetchOn(ctx, legacyFetchRequest(topic, 0, 1<<20), 2).Topics[0].Partitions[0].ErrorCode
	}
	if got := fetchError("plain"); got != 0 {
		t.Fatalf("before the switch: error %d", got)
	}
	r := incrementalAlter(f, false, incrementalResource(kmsg.ConfigResourceTypeBroker, "", set("log.message.downconversion.enable", "false")))
	if r[0].ErrorCode != 0 {
		t.Fatalf("setting log.message.downconversion.enable: error %d", r[0].ErrorCode)
	}
	if got := fetchError("plain"); got != kerr.UnsupportedVersion.Code {
		t.Fatalf("a topic without its own key: error %d, want UNSUPPORTED_VERSION", got)
	}
	if got := fetchError("kept"); got != 0 {
		t.Fatalf("a topic with message.downconversion.enable=true: error %d", got)
	}
	syn := configNamed(t, describeConfigs(f, 4, true, false, kmsg.ConfigResourceTypeTopic, "plain", "message.downconversion.enable"), "message.downconversion.enable")
	if *syn.Value != "false" || syn.Source != kmsg.ConfigSourceDynamicDefaultBrokerConfig {
		t.Fatalf("the topic's message.downconversion.enable: %s from %v", *syn.Value, syn.Source)
	}
}
