package server_test

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
)

// hostileHeapBound is how far the heap may grow while one hostile request
// is answered or refused: far below what it would cost if anything were
// sized by its counts (gigabytes for the requests below).
const hostileHeapBound = 64 << 20

// rawRequest frames body, given as bytes, behind a request header v1
// (v2 when flexible) with client id "t".
func rawRequest(key, version int16, correlationID int32, flexible bool, body ...byte) []byte {
	return server.FrameOf(key, version, correlationID, flexible, body)
}

// withinHeapBound runs fn and fails if the heap grew more than
// hostileHeapBound above where it was meanwhile.
func withinHeapBound(t *testing.T, fn func()) {
	t.Helper()
	runtime.GC()
	baseline := server.HeapObjects()
	stop := make(chan struct{})
	peak := server.HeapPeak(stop)
	fn()
	close(stop)
	if grown := int64(<-peak) - int64(baseline); grown > hostileHeapBound {
		t.Fatalf("heap grew %d MiB, bound %d MiB", grown>>20, hostileHeapBound>>20)
	}
}

// TestNullInNonNullableFieldClosesTheConnection: Kafka's parser throws on
// a null length in a field that is not nullable, and its socket server
// closes the connection; kmsg reads such an array or byte string as
// empty, so Karst used to answer it, with no error. Each body is written
// out byte by byte.
func TestNullInNonNullableFieldClosesTheConnection(t *testing.T) {
	b := karsttest.Start(t)
	watch := server.WatchHostile(t, os.Getpid(), b.Addr())
	defer server.FinishWatch(watch, "nulls in non-nullable fields")
	other := server.DialTest(t, b.Addr())
	timeout := []byte{0, 0, 0x75, 0x30}
	for _, c := range []struct {
		name  string
		frame []byte
	}{
		{"CreateTopics v4 topics", rawRequest(19, 4, 1, false, append(append([]byte{0xff, 0xff, 0xff, 0xff}, timeout...), 0)...)},
		{"CreateTopics v5 topics (compact)", rawRequest(19, 5, 2, true, append(append([]byte{0}, timeout...), 0, 0)...)},
		{"DeleteTopics v4 names (compact)", rawRequest(20, 4, 3, true, append([]byte{0}, append(timeout, 0)...)...)},
		{"Produce v3 topics", rawRequest(0, 3, 4, false, 0xff, 0xff, 0, 1, 0, 0, 0x75, 0x30, 0xff, 0xff, 0xff, 0xff)},
		{"Produce v9 partitions (compact)", rawRequest(0, 9, 5, true, 0, 0, 1, 0, 0, 0x75, 0x30, 2, 2, 't', 0, 0, 0)},
		// JoinGroup v5: group "g", session and rebalance timeouts, member
		// id "", no instance id, protocol type "c", one protocol "r"
		// whose metadata bytes are null.
		{"JoinGroup v5 protocol metadata", rawRequest(11, 5, 6, false,
			0, 1, 'g', 0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 0, 0, 0xff, 0xff, 0, 1, 'c',
			0, 0, 0, 1, 0, 1, 'r', 0xff, 0xff, 0xff, 0xff)},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := server.DialTest(t, b.Addr())
			if _, err := conn.Write(c.frame); err != nil {
				t.Fatal(err)
			}
			apiVersionsOK(t, other, 100)
			if n, err := conn.Read(make([]byte, 64)); err != io.EOF {
				t.Fatalf("read %d bytes, %v; want the connection closed", n, err)
			}
		})
	}
	// A null where the schema allows one is answered: Metadata v4 with
	// null topics (all of them), no auto-creation.
	conn := server.DialTest(t, b.Addr())
	if _, err := conn.Write(rawRequest(3, 4, 7, false, 0xff, 0xff, 0xff, 0xff, 0)); err != nil {
		t.Fatal(err)
	}
	if got := correlationID(readFrame(t, conn)); got != 7 {
		t.Fatalf("correlation id %d, want 7", got)
	}
	if b.PanicsRecovered() != 0 {
		t.Fatal("a handler panicked")
	}
}

// TestHugeCreateTopicsAnsweredPolicyViolation: CreateTopics asking for
// 2,147,483,647 or 100,000,000 partitions once ended the process (out of
// memory) or cost gigabytes before being refused; like Kafka, Karst now
// answers POLICY_VIOLATION before sizing anything, and serves another
// client meanwhile.
func TestHugeCreateTopicsAnsweredPolicyViolation(t *testing.T) {
	b := karsttest.Start(t)
	watch := server.WatchHostile(t, os.Getpid(), b.Addr())
	defer server.FinishWatch(watch, "CreateTopics of 2,147,483,647 and 100,000,000 partitions")
	attacker, other := server.DialTest(t, b.Addr()), server.DialTest(t, b.Addr())
	for i, partitions := range []int32{math.MaxInt32, 100_000_000} {
		req := kmsg.NewPtrCreateTopicsRequest()
		topic := kmsg.NewCreateTopicsRequestTopic()
		topic.Topic, topic.NumPartitions, topic.ReplicationFactor = "huge", partitions, 1
		req.Topics = append(req.Topics, topic)
		corr := int32(10 + i)
		withinHeapBound(t, func() {
			if _, err := attacker.Write(request(req, 7, corr, "t")); err != nil {
				t.Fatal(err)
			}
			apiVersionsOK(t, other, 100+corr)
			frame := readFrame(t, attacker)
			if got := correlationID(frame); got != corr {
				t.Fatalf("correlation id %d, want %d", got, corr)
			}
			resp := kmsg.NewPtrCreateTopicsResponse()
			resp.SetVersion(7)
			if err := resp.ReadFrom(frame[5:]); err != nil { // v7 has response header v1
				t.Fatal(err)
			}
			if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.PolicyViolation.Code {
				t.Fatalf("%d partitions: answer %+v, want POLICY_VIOLATION", partitions, resp.Topics)
			}
		})
	}
}

// TestLargeProduceIsDecodedNotRefused: a Produce request of 12 MiB of
// records would be charged 1.5 GiB at the decode factor per byte, more
// than the decode budget; counted, it costs a few hundred bytes, is
// decoded and answered.
func TestLargeProduceIsDecodedNotRefused(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithMaxRequestSize(16<<20), karsttest.WithAutoCreateTopics(false))
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 30000
	topic := kmsg.NewProduceRequestTopic()
	topic.Topic = "absent"
	part := kmsg.NewProduceRequestTopicPartition()
	part.Records = make([]byte, 12<<20)
	topic.Partitions = append(topic.Partitions, part)
	req.Topics = append(req.Topics, topic)
	c := server.DialTest(t, b.Addr())
	if _, err := c.Write(request(req, 9, 5, "t")); err != nil {
		t.Fatal(err)
	}
	if got := correlationID(readFrame(t, c)); got != 5 {
		t.Fatalf("correlation id %d, want 5", got)
	}
}

// TestMillionTopicsAreAnswered: 1,000,000 elements are within Kafka's
// collection cap, so a Metadata v9 request for a million empty topic
// names is decoded and answered (each UNKNOWN_TOPIC_OR_PARTITION, with
// auto-creation off) while a bystander's Metadata requests are answered
// too (TestCollectionAboveKafkasCapClosesTheConnection refuses one more).
func TestMillionTopicsAreAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("answers a Metadata request for a million topics")
	}
	b := karsttest.Start(t, karsttest.WithMaxRequestSize(4<<20), karsttest.WithAutoCreateTopics(false))
	// Not a hostile request but the largest a client may send: answering
	// a million topics took ~330 MiB of RSS (~670 MiB under -race).
	watch := server.WatchUpTo(t, os.Getpid(), b.Addr(), 2<<30)
	c := server.DialTest(t, b.Addr())
	if _, err := c.Write(server.MetadataV9Frame(server.MaxCollectionLength, 7)); err != nil {
		t.Fatal(err)
	}
	frame := readFrameUpTo(t, c, 64<<20) // 10 bytes a topic
	if got := correlationID(frame); got != 7 {
		t.Fatalf("correlation id %d, want 7", got)
	}
	resp := kmsg.NewPtrMetadataResponse()
	resp.SetVersion(9)
	if err := resp.ReadFrom(frame[5:]); err != nil { // v9 has response header v1
		t.Fatal(err)
	}
	server.FinishWatch(watch, fmt.Sprintf("Metadata v9 for 1,000,000 topics (answer of %d MiB)", len(frame)>>20))
	if len(resp.Topics) != server.MaxCollectionLength || resp.Topics[0].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("%d topics answered, the first with error %d; want %d with UNKNOWN_TOPIC_OR_PARTITION",
			len(resp.Topics), resp.Topics[0].ErrorCode, server.MaxCollectionLength)
	}
}
