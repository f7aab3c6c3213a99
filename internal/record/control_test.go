package record

import "testing"

func TestMarkerRoundTrip(t *testing.T) {
	for _, typ := range []ControlType{ControlAbort, ControlCommit} {
		want := Marker{ProducerID: 4001, ProducerEpoch: 7, CoordinatorEpoch: 3, Type: typ, Timestamp: 1_700_000_000_000}
		raw := BuildMarker(nil, want)
		b, n, err := ParseBatch(raw, len(raw))
		if err != nil || n != len(raw) {
			t.Fatalf("ParseBatch: n=%d err=%v", n, err)
		}
		if !b.IsControl() || !b.IsTransactional() || !b.ValidCRC() {
			t.Fatalf("attributes %x, crc ok %v", b.Attributes(), b.ValidCRC())
		}
		got, err := ParseMarker(b)
		if err != nil || got != want {
			t.Fatalf("ParseMarker = %+v, %v; want %+v", got, err, want)
		}
	}
}

func TestParseMarkerRejectsDataBatch(t *testing.T) {
	raw, err := Build(nil, BatchHeader{ProducerID: 1}, []Record{{Key: []byte{0, 0, 0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := ParseBatch(raw, len(raw))
	if _, err := ParseMarker(b); err == nil {
		t.Fatal("a data batch parsed as a marker")
	}
}
