package server

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataV9Frame is a Metadata v9 request for topics empty names (two
// bytes each: the name's length and an empty tag section), with no
// auto-creation: the cheapest elements a body can declare.
func metadataV9Frame(topics int, correlationID int32) []byte {
	body := binary.AppendUvarint(nil, uint64(topics)+1)
	for range topics {
		body = append(body, 1, 0)
	}
	body = append(body, 0, 0, 0, 0) // auto-creation, both authorized operations, tags
	return frameOf(3, 9, correlationID, true, body)
}

// frameOf frames body behind a request header (v2 when flexible, else v1)
// with client id "t".
func frameOf(key, version int16, correlationID int32, flexible bool, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	b = append(b, 0, 1, 't')
	if flexible {
		b = append(b, 0)
	}
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// TestCollectionAboveKafkasCapClosesTheConnection: like Kafka 4.4's
// parsers, Karst refuses an array declaring more than 1,000,000 elements
// before decoding it and closes the connection, while a bystander's
// Metadata requests go on being answered. A body of 1,000,001 empty
// names is within the decode budget (2,000,009 bytes could allocate 256,009,344; the budget is
// 268,435,456), so only the count refuses it.
func TestCollectionAboveKafkasCapClosesTheConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("sends frames of 2 MB declaring a million topics")
	}
	s, addr := startTestServer(t, Config{MaxRequestSize: 4 << 20})
	if cost := decodeCost(len(metadataV9Frame(maxCollectionLength+1, 0)) - 16); cost > DefaultDecodeBudget {
		t.Fatalf("a body of 1,000,001 topics could allocate %d, more than the budget %d: the budget would refuse it first", cost, DefaultDecodeBudget)
	}
	for _, c := range []struct {
		name  string
		frame []byte
	}{
		{"Metadata v9 with 1,000,001 topics", metadataV9Frame(maxCollectionLength+1, 1)},
		// The length says 2^31-1 (uvarint 2^31) and the body ends.
		{"Metadata v9 declaring 2^31-1 topics", frameOf(3, 9, 2, true, binary.AppendUvarint(nil, 1<<31))},
		{"Metadata v4 declaring 2^31-1 topics", frameOf(3, 4, 3, false, []byte{0x7f, 0xff, 0xff, 0xff, 0})},
	} {
		t.Run(c.name, func(t *testing.T) { refusedBeforeDecoding(t, s, addr, c.frame) })
	}
	// 1,000,000 topics: TestMillionTopicsAreAnswered, with a broker that
	// has metadata to answer from.
}

// TestTagSectionAboveKafkasCapClosesTheConnection: Kafka 4.4 refuses a
// tag section declaring more than 10,000 fields; 10,000 distinct unknown
// tags are skipped and the request answered.
func TestTagSectionAboveKafkasCapClosesTheConnection(t *testing.T) {
	s, addr := startTestServer(t, Config{})
	withTags := func(n int, correlationID int32) []byte {
		req := kmsg.NewPtrApiVersionsRequest()
		req.SetVersion(3)
		req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1"
		for i := range n {
			req.UnknownTags.Set(uint32(128+i), nil)
		}
		return encodeRequest(req, correlationID)
	}
	refusedBeforeDecoding(t, s, addr, withTags(maxTaggedFields+1, 1))
	roundTrip(t, dialTest(t, addr), withTags(maxTaggedFields, 2), 2)
}

// TestCollectionCapAppliesBeforeTheBudget: the count alone refuses a body,
// whatever the budget says of its bytes: a Produce of 1,000,001 empty
// topics (3 MB) and a Metadata v9 of 1,000,001 empty names are refused
// for their count with no budget at all, and 1,000,000 are not.
func TestCollectionCapAppliesBeforeTheBudget(t *testing.T) {
	produce := func(topics int) []byte {
		body := []byte{0, 0, 1, 0, 0, 0x75, 0x30} // no transactional id, acks 1, timeout
		body = binary.AppendUvarint(body, uint64(topics)+1)
		for range topics {
			body = append(body, 1, 1, 0) // name "", no partitions, no tags
		}
		return append(body, 0)
	}
	metadata := func(topics int) []byte { return metadataV9Frame(topics, 1)[4+8+3+1:] }
	noBudget := newDecodeBudgets(-1)
	for _, c := range []struct {
		name string
		key  int16
		body func(int) []byte
	}{{"Produce v9", 0, produce}, {"Metadata v9", 3, metadata}} {
		for topics, want := range map[int]error{maxCollectionLength + 1: errCollectionTooLarge, maxCollectionLength: nil} {
			req := newRequest(c.key, 9)
			err := noBudget.decode(req, c.body(topics))
			if !errors.Is(err, want) || (want != nil) != refusedAsKafkaRefuses(err) {
				t.Errorf("%s with %d topics: %v, want %v", c.name, topics, err, want)
			}
		}
	}
}

// TestNullStringAndLongStringCloseTheConnection: Kafka's parser throws on
// a null in a non-nullable string and on a compact string longer than an
// int16 length allows; kmsg fails on the first (answered
// INVALID_REQUEST) and decodes the second.
func TestNullStringAndLongStringCloseTheConnection(t *testing.T) {
	s, addr := startTestServer(t, Config{})
	// ApiVersions v3: client software name null, then version "1".
	refusedBeforeDecoding(t, s, addr, frameOf(18, 3, 1, true, []byte{0, 2, '1', 0}))
	long := kmsg.NewPtrApiVersionsRequest()
	long.SetVersion(3)
	long.ClientSoftwareName, long.ClientSoftwareVersion = string(make([]byte, 0x8000)), "1"
	refusedBeforeDecoding(t, s, addr, encodeRequest(long, 2))
	long.ClientSoftwareName = long.ClientSoftwareName[1:] // 32767 bytes: answered
	roundTrip(t, dialTest(t, addr), encodeRequest(long, 3), 3)
}
