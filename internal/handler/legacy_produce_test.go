package handler

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/record/legacy/legacytest"
)

// produceLegacy sends set to partition 0 of topic with Produce version v and
// returns the partition's answer.
func (f *adminFixture) produceLegacy(topic string, v int16, set []byte) kmsg.ProduceResponseTopicPartition {
	f.t.Helper()
	req := newProduceRequest(topic, 0, -1, nil, set)
	req.SetVersion(v)
	out := f.b.Handle(context.Background(), Lookup(0), &Request{Header: wireHeader(0, v), Body: req, Conn: &Conn{ListenerName: "PLAINTEXT"}})
	resp := out.Response
	if out.Later != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp = out.Later(ctx)
		cancel()
	}
	return resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
}

// storedBatches reads every v2 batch of partition 0 of topic.
func (f *adminFixture) storedBatches(topic string) []record.Batch {
	f.t.Helper()
	data, _, err := f.log(topic, 0).ReadBytes(nil, 0, 64<<20, true)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []record.Batch
	for len(data) > 0 {
		b, n, err := record.ParseBatch(data, len(data))
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, b)
		data = data[n:]
	}
	return out
}

type storedRecord struct {
	offset, timestamp int64
	key, value        string
}

func recordsOf(t *testing.T, batches []record.Batch) []storedRecord {
	t.Helper()
	var out []storedRecord
	for _, b := range batches {
		err := b.ForEachRecord(0, func(r *record.Record) error {
			ts := b.BaseTimestamp() + r.TimestampDelta
			if b.TimestampType() == record.LogAppendTime {
				ts = b.MaxTimestamp()
			}
			if b.BaseTimestamp() == record.NoTimestamp {
				ts = record.NoTimestamp
			}
			out = append(out, storedRecord{b.BaseOffset() + int64(r.OffsetDelta), ts, string(r.Key), string(r.Value)})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestProduceMessageSetsAreStoredAsV2: Produce v0-2 with magic 0 and 1
// MessageSets, plain and in wrappers of each codec, are appended as v2
// batches with offsets assigned in order, magic 1 timestamps kept and magic
// 0 ones absent, keys and values as sent; each version answers its shape.
func TestProduceMessageSetsAreStoredAsV2(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("old", 1, nil)
	var want []storedRecord
	next := int64(0)
	for _, c := range []struct {
		version int16
		magic   int8
		codec   record.Codec
		// innerZero writes every inner offset as 0, as kafka-clients
		// 0.8.2's producer did.
		innerZero bool
	}{
		{0, 0, record.CodecNone, false}, {0, 0, record.CodecGzip, false}, {1, 0, record.CodecSnappy, false},
		{2, 1, record.CodecNone, false}, {2, 1, record.CodecGzip, false}, {2, 1, record.CodecSnappy, false}, {2, 1, record.CodecLZ4, false},
		{0, 0, record.CodecLZ4, true},
	} {
		var set, inner []byte
		var sent []storedRecord
		for i := range 3 {
			key, value := fmt.Sprintf("k-%d-%d-%s", c.version, i, c.codec), fmt.Sprintf("v-%d-%d-%s", c.version, i, c.codec)
			ts := record.NoTimestamp
			if c.magic == 1 {
				ts = 1_700_000_000_000 + int64(i)
			}
			// Inner offsets: absolute for magic 0, relative for magic 1,
			// as the old producers wrote them; the broker reassigns both.
			offset := int64(i)
			if c.innerZero {
				offset = 0
			}
			inner = append(inner, legacytest.Message(offset, c.magic, 0, ts, []byte(key), []byte(value))...)
			sent = append(sent, storedRecord{next + int64(i), ts, key, value})
		}
		set = inner
		if c.codec != record.CodecNone {
			var err error
			if set, err = legacytest.Wrapper(c.magic, c.codec, 2, 1_700_000_000_002, inner); err != nil {
				t.Fatal(err)
			}
		}
		got := f.produceLegacy("old", c.version, set)
		if got.ErrorCode != 0 || got.BaseOffset != next {
			t.Fatalf("v%d %s: error %d base offset %d, want 0 and %d", c.version, c.codec, got.ErrorCode, got.BaseOffset, next)
		}
		if c.version == 2 && got.LogAppendTime != -1 {
			t.Fatalf("v2 on a CreateTime topic: log append time %d", got.LogAppendTime)
		}
		want = append(want, sent...)
		next += 3
	}
	batches := f.storedBatches("old")
	if len(batches) != 8 {
		t.Fatalf("%d batches stored, want one per request", len(batches))
	}
	if got := recordsOf(t, batches); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stored\n%v\nwant\n%v", got, want)
	}
	if batches[6].Codec() != record.CodecLZ4 || batches[1].Codec() != record.CodecGzip {
		t.Fatalf("codecs %s, %s: the producer's codec is kept", batches[1].Codec(), batches[6].Codec())
	}
}

// TestProduceMagicZeroTakesTheTopicsTimestampType: a magic 0 message has no
// timestamp; on a LogAppendTime topic its batch is marked so, for the log
// to stamp (the broker's time in the answer is checked end to end in
// integration, where the log has the topic's configuration).
func TestProduceMagicZeroTakesTheTopicsTimestampType(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("lat", 1, map[string]*string{"message.timestamp.type": strp("LogAppendTime")})
	f.createTopic("ct", 1, nil)
	for topic, want := range map[string]record.TimestampType{"lat": record.LogAppendTime, "ct": record.CreateTime} {
		if got := f.produceLegacy(topic, 2, legacytest.Message(0, 0, 0, 0, nil, []byte("v"))); got.ErrorCode != 0 {
			t.Fatalf("%s: error %d", topic, got.ErrorCode)
		}
		b := f.storedBatches(topic)[0]
		if b.TimestampType() != want || want == record.CreateTime && b.MaxTimestamp() != record.NoTimestamp {
			t.Fatalf("%s: stored timestamp type %d max %d", topic, b.TimestampType(), b.MaxTimestamp())
		}
	}
}

// TestProduceRefusesCorruptMessageSets: a bad CRC, a wrapper inside a
// wrapper, inner offsets going backwards, a truncated message refuse the whole set with
// CORRUPT_MESSAGE, and nothing of it is appended, even the good messages
// before the fault; zstd, which the old formats lack, is
// UNSUPPORTED_COMPRESSION_TYPE.
func TestProduceRefusesCorruptMessageSets(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("bad", 1, nil)
	good := legacytest.Message(0, 1, 0, 1, []byte("k"), []byte("v"))
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-1] ^= 1
	wrap := func(codec record.Codec, inner []byte) []byte {
		w, err := legacytest.Wrapper(1, codec, 0, 1, inner)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	nested := wrap(record.CodecGzip, wrap(record.CodecSnappy, good))
	backwards := wrap(record.CodecGzip, append(legacytest.Message(1, 1, 0, 1, nil, []byte("a")), legacytest.Message(0, 1, 0, 1, nil, []byte("b"))...))
	zstd := legacytest.Message(0, 1, int8(record.CodecZstd), 1, nil, []byte("x"))
	for _, c := range []struct {
		name string
		set  []byte
		want int16
	}{
		{"bad CRC after a good message", append(bytes.Clone(good), badCRC...), kerr.CorruptMessage.Code},
		{"nested wrapper", nested, kerr.CorruptMessage.Code},
		{"inner offsets backwards", backwards, kerr.CorruptMessage.Code},
		{"truncated", good[:len(good)-3], kerr.CorruptMessage.Code},
		{"a v2 batch on Produce v2", mustBatch(t), kerr.CorruptMessage.Code},
		{"zstd", zstd, kerr.UnsupportedCompressionType.Code},
	} {
		for _, v := range []int16{0, 2} {
			if got := f.produceLegacy("bad", v, c.set); got.ErrorCode != c.want || got.BaseOffset != -1 {
				t.Errorf("%s v%d: error %d offset %d, want %d", c.name, v, got.ErrorCode, got.BaseOffset, c.want)
			}
		}
	}
	if leo := f.log("bad", 0).LogEndOffset(); leo != 0 {
		t.Fatalf("%d records appended from refused sets", leo)
	}
}

func mustBatch(t *testing.T) []byte {
	b, err := record.Build(nil, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, []record.Record{{Value: []byte("v2")}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
