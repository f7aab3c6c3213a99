package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

func rawTestBatch(t *testing.T, base int64, values ...string) []byte {
	t.Helper()
	recs := make([]record.Record, len(values))
	for i, v := range values {
		recs[i] = record.Record{OffsetDelta: int32(i), Key: []byte("k"), Value: []byte(v)}
	}
	b, err := record.Build(nil, record.BatchHeader{BaseOffset: base, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRawWalkCountsWholeBatchesAndRefetchesACutOne(t *testing.T) {
	first := rawTestBatch(t, 10, "aa", "bbb")
	second := rawTestBatch(t, 12, "cccc")
	data := append(append([]byte(nil), first...), second[:len(second)-5]...) // the limit cut the second batch
	f := rawFetcher{offsets: map[int32]int64{0: 10}}
	if err := f.walk(0, data); err != nil {
		t.Fatal(err)
	}
	if f.records != 2 || f.bytes != 2+2+3 || f.offsets[0] != 12 {
		t.Fatalf("records %d bytes %d next offset %d; want 2, 7, 12", f.records, f.bytes, f.offsets[0])
	}
	// The next fetch starts at 12 and gets the whole batch; a batch that
	// ends before the fetch offset (a broker may resend it) is not counted again.
	if err := f.walk(0, append(append([]byte(nil), first...), second...)); err != nil {
		t.Fatal(err)
	}
	if f.records != 3 || f.bytes != 7+1+4 || f.offsets[0] != 13 {
		t.Fatalf("records %d bytes %d next offset %d; want 3, 12, 13", f.records, f.bytes, f.offsets[0])
	}
}

func TestRawWalkRefusesACorruptBatch(t *testing.T) {
	b := rawTestBatch(t, 0, "value")
	b[len(b)-1] ^= 0xff // the CRC no longer matches
	f := rawFetcher{offsets: map[int32]int64{0: 0}}
	if err := f.walk(0, b); err == nil {
		t.Fatal("a batch with a bad CRC was counted")
	}
	compressed, err := record.Build(nil, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Codec: record.CodecGzip},
		[]record.Record{{Value: []byte("v")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.walk(0, compressed); err == nil || !strings.Contains(err.Error(), "compressed") {
		t.Fatalf("compressed batch: %v, want a clear error", err)
	}
}

func TestResponseBodyChecksTheHeader(t *testing.T) {
	if _, err := responseBody([]byte{0, 0, 0, 7, 0, 1}, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := responseBody([]byte{0, 0, 0, 8, 0, 1}, 7); err == nil {
		t.Fatal("a wrong correlation id was accepted")
	}
	if _, err := responseBody([]byte{0, 0, 0}, 7); err == nil {
		t.Fatal("a short frame was accepted")
	}
}

func TestRawRequestPatchedEqualsFreshlyEncoded(t *testing.T) {
	offsets := map[int32]int64{2: 7, 0: 5, 1: 1 << 40}
	f, err := newRawFetcher(nil, "a-topic", offsets, 1, 4096, 300)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for p := range offsets {
			offsets[p] += int64(round*1000) + int64(p)
		}
		got := f.request()
		want := rawFetchFormatter.AppendRequest(nil, fetchRequest("a-topic", []int32{0, 1, 2}, offsets, 1, 4096, 300), f.corrID)
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: patched request\n%x\nwant\n%x", round, got, want)
		}
	}
}
