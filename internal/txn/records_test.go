package txn

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The golden bytes are assembled by hand from TransactionLogKey.json and
// TransactionLogValue.json.
func TestRecordsGolden(t *testing.T) {
	key := unhex(t, "0000 0003 747831")
	if got := EncodeKey("tx1"); !bytes.Equal(got, key) {
		t.Fatalf("key %x", got)
	}
	if id, err := DecodeKey(key); err != nil || id != "tx1" {
		t.Fatalf("decode key: %q %v", id, err)
	}
	v0 := LogValue{Version: 0, ProducerID: 1000, PreviousProducerID: -1, NextProducerID: -1, ProducerEpoch: 2,
		TimeoutMs: 60000, State: Ongoing, Partitions: []TopicPartition{{"t", 1}, {"t", 0}},
		LastUpdateMs: 5, StartMs: 4}
	golden0 := unhex(t, `0000 00000000000003e8 0002 0000ea60 01
		00000001 0001 74 00000002 00000000 00000001
		0000000000000005 0000000000000004`)
	if got := EncodeValue(v0); !bytes.Equal(got, golden0) {
		t.Fatalf("v0:\n got %x\nwant %x", got, golden0)
	}
	v1 := v0
	v1.Version, v1.PreviousProducerID, v1.ClientTransactionVersion = 1, 999, 2
	golden1 := unhex(t, `0001 00000000000003e8 0002 0000ea60 01
		02 02 74 03 00000000 00000001 00
		0000000000000005 0000000000000004
		02 00 08 00000000000003e7 02 02 0002`)
	if got := EncodeValue(v1); !bytes.Equal(got, golden1) {
		t.Fatalf("v1:\n got %x\nwant %x", got, golden1)
	}
	for _, c := range []struct {
		b    []byte
		want LogValue
	}{{golden0, v0}, {golden1, v1}} {
		got, err := DecodeValue(c.b)
		c.want.Partitions = groupByTopic(c.want.Partitions)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Fatalf("decode:\n got %+v %v\nwant %+v", got, err, c.want)
		}
	}
	// Empty stores a null partition list.
	empty := LogValue{Version: 0, ProducerID: 1, PreviousProducerID: -1, NextProducerID: -1, State: Empty, StartMs: -1}
	enc := EncodeValue(empty)
	if !bytes.Equal(enc[17:21], []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("null partitions: %x", enc)
	}
	if got, err := DecodeValue(enc); err != nil || !reflect.DeepEqual(got, empty) {
		t.Fatalf("empty: %+v %v", got, err)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	for _, v := range []LogValue{
		{Version: 0, ProducerID: 7, PreviousProducerID: -1, NextProducerID: -1, ProducerEpoch: 32766, TimeoutMs: 1,
			State: CompleteCommit, Partitions: []TopicPartition{}, LastUpdateMs: 9, StartMs: 8},
		{Version: 1, ProducerID: 7, PreviousProducerID: 3, NextProducerID: 12, ProducerEpoch: 0, TimeoutMs: 900000,
			State: PrepareAbort, Partitions: []TopicPartition{{"a", 0}, {"b", 3}, {"b", 4}}, LastUpdateMs: -1, StartMs: -1,
			ClientTransactionVersion: 2},
		{Version: 1, ProducerID: 7, PreviousProducerID: -1, NextProducerID: -1, State: Empty, StartMs: -1},
	} {
		got, err := DecodeValue(EncodeValue(v))
		if err != nil || !reflect.DeepEqual(got, v) {
			t.Fatalf("round trip:\n got %+v %v\nwant %+v", got, err, v)
		}
	}
}

func TestRecordsRejectMalformed(t *testing.T) {
	good := EncodeValue(LogValue{Version: 1, ProducerID: 1, PreviousProducerID: 2, NextProducerID: -1,
		State: Ongoing, Partitions: []TopicPartition{{"t", 0}}})
	for i := 0; i < len(good)-1; i++ {
		if _, err := DecodeValue(good[:i]); err == nil {
			t.Fatalf("truncated at %d decoded", i)
		}
	}
	if _, err := DecodeValue(unhex(t, "0002")); err == nil {
		t.Fatal("unknown version decoded")
	}
	bad := bytes.Clone(good)
	bad[16] = 9 // state
	if _, err := DecodeValue(bad); err == nil {
		t.Fatal("unknown state decoded")
	}
	if _, err := DecodeKey(unhex(t, "0001 0001 61")); err == nil {
		t.Fatal("a group key decoded as a transaction key")
	}
	if _, err := DecodeKey(unhex(t, "0000 0005 61")); err == nil {
		t.Fatal("short key decoded")
	}
}

func FuzzDecodeValue(f *testing.F) {
	f.Add(EncodeValue(LogValue{Version: 0, ProducerID: 1, State: Ongoing, Partitions: []TopicPartition{{"t", 0}}}))
	f.Add(EncodeValue(LogValue{Version: 1, ProducerID: 1, PreviousProducerID: 4, State: PrepareCommit,
		Partitions: []TopicPartition{{"t", 0}, {"u", 2}}, ClientTransactionVersion: 2}))
	f.Add([]byte{0, 1, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeValue(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to something that decodes the same.
		again, err := DecodeValue(EncodeValue(v))
		if err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if v.State != Empty || v.Partitions != nil {
			v.Partitions = groupByTopic(v.Partitions)
		}
		if !reflect.DeepEqual(again, v) && !(len(again.Partitions) == 0 && len(v.Partitions) == 0) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", again, v)
		}
	})
}

func FuzzDecodeKey(f *testing.F) {
	f.Add(EncodeKey("tx"))
	f.Add([]byte{0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := DecodeKey(b)
		if err == nil && !bytes.Equal(EncodeKey(id), b) {
			t.Fatalf("key %x decodes to %q", b, id)
		}
	})
}
