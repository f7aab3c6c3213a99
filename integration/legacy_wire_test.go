package integration

// Raw-wire tests of the requests Kafka 0.8 clients send, laid out field by
// field as the 0.8 protocol guide ("A Guide To The Kafka Protocol",
// ../shared/seeds/001_*) gives them, with no Kafka library's encoder or
// decoder in the way:
//
//	RequestMessage => Size ApiKey ApiVersion CorrelationId ClientId Body
//	Response => Size CorrelationId Body
//	MetadataRequest => [TopicName]
//	MetadataResponse => [Broker] [TopicMetadata]
//	  Broker => NodeId Host Port
//	  TopicMetadata => TopicErrorCode TopicName [PartitionMetadata]
//	  PartitionMetadata => PartitionErrorCode PartitionId Leader Replicas Isr
//	ProduceRequest => RequiredAcks Timeout [TopicName [Partition MessageSetSize MessageSet]]
//	ProduceResponse => [TopicName [Partition ErrorCode Offset]]
//	FetchRequest => ReplicaId MaxWaitTime MinBytes [TopicName [Partition FetchOffset MaxBytes]]
//	FetchResponse => [TopicName [Partition ErrorCode HighwaterMarkOffset MessageSetSize MessageSet]]
//	OffsetRequest => ReplicaId [TopicName [Partition Time MaxNumberOfOffsets]]
//	OffsetResponse => [TopicName [Partition ErrorCode [Offset]]]
//	OffsetCommitRequest => ConsumerGroup [TopicName [Partition Offset Metadata]]
//	OffsetCommitResponse => [TopicName [Partition ErrorCode]]
//	OffsetFetchRequest => ConsumerGroup [TopicName [Partition]]
//	OffsetFetchResponse => [TopicName [Partition Offset Metadata ErrorCode]]
//	MessageSet => [Offset MessageSize Message]   (not length-prefixed as an array)
//	Message => Crc MagicByte Attributes Key Value
//
// and the guide's error codes: NoError 0, OffsetOutOfRange 1,
// InvalidMessage 2, UnknownTopicOrPartition 3.

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/record/legacy/legacytest"
	"github.com/karst-broker/karst/karsttest"
)

// The guide's error codes.
const (
	guideNoError                 = 0
	guideOffsetOutOfRange        = 1
	guideInvalidMessage          = 2
	guideUnknownTopicOrPartition = 3
)

// guideWriter builds a request body with the guide's primitives.
type guideWriter struct{ bytes.Buffer }

func (w *guideWriter) int16(v int16) *guideWriter { _ = binary.Write(w, binary.BigEndian, v); return w }
func (w *guideWriter) int32(v int32) *guideWriter { _ = binary.Write(w, binary.BigEndian, v); return w }
func (w *guideWriter) int64(v int64) *guideWriter { _ = binary.Write(w, binary.BigEndian, v); return w }
func (w *guideWriter) string16(s string) *guideWriter {
	w.int16(int16(len(s)))
	w.WriteString(s)
	return w
}
func (w *guideWriter) bytes32(b []byte) *guideWriter {
	w.int32(int32(len(b)))
	w.Write(b)
	return w
}

// guideReader reads a response body; any short read fails the test.
type guideReader struct {
	t *testing.T
	b []byte
}

func (r *guideReader) next(n int) []byte {
	r.t.Helper()
	if n < 0 || len(r.b) < n {
		r.t.Fatalf("response ends %d bytes short", n-len(r.b))
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}
func (r *guideReader) int16() int16 { return int16(binary.BigEndian.Uint16(r.next(2))) }
func (r *guideReader) int32() int32 { return int32(binary.BigEndian.Uint32(r.next(4))) }
func (r *guideReader) int64() int64 { return int64(binary.BigEndian.Uint64(r.next(8))) }
func (r *guideReader) string16() string {
	n := r.int16()
	if n < 0 {
		return ""
	}
	return string(r.next(int(n)))
}
func (r *guideReader) bytes32() []byte {
	n := r.int32()
	if n < 0 {
		return nil
	}
	return r.next(int(n))
}
func (r *guideReader) done() {
	r.t.Helper()
	if len(r.b) != 0 {
		r.t.Fatalf("%d bytes left over in the response", len(r.b))
	}
}

// guideConn sends requests as a 0.8 client and reads the answers.
type guideConn struct {
	t    *testing.T
	c    net.Conn
	corr int32
}

func dialGuide(t *testing.T, addr string) *guideConn {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &guideConn{t: t, c: c}
}

func (g *guideConn) call(apiKey, apiVersion int16, body []byte) *guideReader {
	g.t.Helper()
	g.corr++
	var req guideWriter
	req.int16(apiKey).int16(apiVersion).int32(g.corr).string16("guide-client")
	req.Write(body)
	var frame guideWriter
	frame.bytes32(req.Bytes())
	_ = g.c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := g.c.Write(frame.Bytes()); err != nil {
		g.t.Fatal(err)
	}
	var size [4]byte
	if _, err := io.ReadFull(g.c, size[:]); err != nil {
		g.t.Fatal(err)
	}
	resp := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(g.c, resp); err != nil {
		g.t.Fatal(err)
	}
	r := &guideReader{t: g.t, b: resp}
	if corr := r.int32(); corr != g.corr {
		g.t.Fatalf("correlation id %d, want %d", corr, g.corr)
	}
	return r
}

func (g *guideConn) produce(topic string, set []byte) (errorCode int16, offset int64) {
	g.t.Helper()
	var w guideWriter
	w.int16(1).int32(5000).int32(1).string16(topic).int32(1).int32(0).bytes32(set)
	r := g.call(0, 0, w.Bytes())
	if n := r.int32(); n != 1 {
		g.t.Fatalf("%d topics answered", n)
	}
	if got := r.string16(); got != topic {
		g.t.Fatalf("topic %q answered", got)
	}
	if n, p := r.int32(), r.int32(); n != 1 || p != 0 {
		g.t.Fatalf("%d partitions, first %d", n, p)
	}
	errorCode, offset = r.int16(), r.int64()
	r.done()
	return errorCode, offset
}

type guideMessage struct {
	offset     int64
	key, value string
}

func (g *guideConn) fetch(topic string, offset int64) (errorCode int16, highWatermark int64, messages []guideMessage) {
	g.t.Helper()
	var w guideWriter
	w.int32(-1).int32(100).int32(1).int32(1).string16(topic).int32(1).int32(0).int64(offset).int32(1 << 20)
	r := g.call(1, 0, w.Bytes())
	if n := r.int32(); n != 1 || r.string16() != topic {
		g.t.Fatalf("%d topics answered", n)
	}
	if n, p := r.int32(), r.int32(); n != 1 || p != 0 {
		g.t.Fatalf("%d partitions, first %d", n, p)
	}
	errorCode, highWatermark = r.int16(), r.int64()
	set := &guideReader{t: g.t, b: r.bytes32()}
	r.done()
	for len(set.b) >= 12 {
		off, size := set.int64(), set.int32()
		if int(size) > len(set.b) {
			break // a partial message ends the set
		}
		m := &guideReader{t: g.t, b: set.next(int(size))}
		crc := uint32(m.int32())
		if crc32.ChecksumIEEE(m.b) != crc {
			g.t.Fatalf("message at %d: CRC %x does not match", off, crc)
		}
		if magic, attrs := m.next(1)[0], m.next(1)[0]; magic != 0 || attrs != 0 {
			g.t.Fatalf("message at %d: magic %d attributes %d, want 0 and 0 for Fetch v0", off, magic, attrs)
		}
		key, value := m.bytes32(), m.bytes32()
		m.done()
		messages = append(messages, guideMessage{off, string(key), string(value)})
	}
	return errorCode, highWatermark, messages
}

func TestGuideRequestsOfKafka08(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithAutoCreateTopics(false))
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(testContext(t), 1, 1, nil, "guide"); err != nil {
		t.Fatal(err)
	}
	g := dialGuide(t, b.Addr())

	t.Run("metadata", func(t *testing.T) {
		var w guideWriter
		w.int32(1).string16("guide")
		r := g.call(3, 0, w.Bytes())
		brokers := r.int32()
		var leaderFound bool
		var ids []int32
		for range brokers {
			id, host, port := r.int32(), r.string16(), r.int32()
			ids = append(ids, id)
			if net.JoinHostPort(host, strconv.Itoa(int(port))) == b.Addr() {
				leaderFound = true
			}
		}
		if !leaderFound {
			t.Fatalf("no broker at %s among %d", b.Addr(), brokers)
		}
		if n := r.int32(); n != 1 {
			t.Fatalf("%d topics", n)
		}
		if code, name := r.int16(), r.string16(); code != guideNoError || name != "guide" {
			t.Fatalf("topic %q error %d", name, code)
		}
		if n := r.int32(); n != 1 {
			t.Fatalf("%d partitions", n)
		}
		code, id, leader := r.int16(), r.int32(), r.int32()
		replicas, isr := r.int32(), int32(0)
		for range replicas {
			r.int32()
		}
		isr = r.int32()
		for range isr {
			r.int32()
		}
		r.done()
		if code != guideNoError || id != 0 || leader != ids[0] || replicas != 1 || isr != 1 {
			t.Fatalf("partition %d error %d leader %d replicas %d isr %d", id, code, leader, replicas, isr)
		}
	})

	set := append(legacytest.Message(0, 0, 0, 0, []byte("k1"), []byte("v1")), legacytest.Message(0, 0, 0, 0, nil, []byte("v2"))...)
	t.Run("produce", func(t *testing.T) {
		if code, offset := g.produce("guide", set); code != guideNoError || offset != 0 {
			t.Fatalf("error %d offset %d", code, offset)
		}
		bad := bytes.Clone(set)
		bad[len(bad)-1] ^= 1
		if code, offset := g.produce("guide", bad); code != guideInvalidMessage || offset != -1 {
			t.Fatalf("bad CRC: error %d offset %d, want InvalidMessage", code, offset)
		}
		if code, _ := g.produce("nowhere", set); code != guideUnknownTopicOrPartition {
			t.Fatalf("unknown topic: error %d", code)
		}
	})

	t.Run("fetch", func(t *testing.T) {
		code, hw, messages := g.fetch("guide", 0)
		if code != guideNoError || hw != 2 || len(messages) != 2 ||
			messages[0] != (guideMessage{0, "k1", "v1"}) || messages[1] != (guideMessage{1, "", "v2"}) {
			t.Fatalf("error %d high watermark %d messages %v", code, hw, messages)
		}
		if code, _, _ := g.fetch("guide", 99); code != guideOffsetOutOfRange {
			t.Fatalf("fetch past the end: error %d", code)
		}
	})

	t.Run("offsets", func(t *testing.T) {
		for _, c := range []struct {
			time int64
			want []int64
		}{{-1, []int64{2, 0}}, {-2, []int64{0}}} {
			var w guideWriter
			w.int32(-1).int32(1).string16("guide").int32(1).int32(0).int64(c.time).int32(10)
			r := g.call(2, 0, w.Bytes())
			if n := r.int32(); n != 1 || r.string16() != "guide" {
				t.Fatalf("%d topics", n)
			}
			if n, p, code := r.int32(), r.int32(), r.int16(); n != 1 || p != 0 || code != guideNoError {
				t.Fatalf("partition %d error %d", p, code)
			}
			var got []int64
			for range r.int32() {
				got = append(got, r.int64())
			}
			r.done()
			if len(got) != len(c.want) || got[0] != c.want[0] {
				t.Fatalf("time %d: offsets %v, want %v", c.time, got, c.want)
			}
		}
	})

	t.Run("offset commit and fetch", func(t *testing.T) {
		var w guideWriter
		w.string16("guide-group").int32(1).string16("guide").int32(1).int32(0).int64(2).string16("guide-meta")
		r := g.call(8, 0, w.Bytes())
		if n := r.int32(); n != 1 || r.string16() != "guide" {
			t.Fatalf("%d topics", n)
		}
		if n, p, code := r.int32(), r.int32(), r.int16(); n != 1 || p != 0 || code != guideNoError {
			t.Fatalf("commit: partition %d error %d", p, code)
		}
		r.done()
		w = guideWriter{}
		w.string16("guide-group").int32(1).string16("guide").int32(1).int32(0)
		r = g.call(9, 0, w.Bytes())
		if n := r.int32(); n != 1 || r.string16() != "guide" {
			t.Fatalf("%d topics", n)
		}
		if n, p := r.int32(), r.int32(); n != 1 || p != 0 {
			t.Fatalf("%d partitions", n)
		}
		offset, meta, code := r.int64(), r.string16(), r.int16()
		r.done()
		if offset != 2 || meta != "guide-meta" || code != guideNoError {
			t.Fatalf("fetched offset %d %q error %d", offset, meta, code)
		}
	})
}
