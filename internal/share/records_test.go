package share

import (
	"bytes"
	"reflect"
	"testing"
)

func TestRecordsRoundTrip(t *testing.T) {
	k := Key{Group: "orders", TopicID: [16]byte{9, 8, 7}, Partition: 3}
	for _, typ := range []int16{recordSnapshot, recordUpdate} {
		gt, gk, err := decodeKey(encodeKey(typ, k))
		if err != nil || gt != typ || gk != k {
			t.Fatalf("key %d: %d %+v %v", typ, gt, gk, err)
		}
	}
	batches := []StateBatch{{0, 4, Acknowledged, 1}, {5, 5, Archived, 5}, {6, 9, Available, 2}}
	sv := snapshotValue{SnapshotEpoch: 2, StateEpoch: 1, LeaderEpoch: 7, StartOffset: 0, CreateTimestamp: 11, WriteTimestamp: 12,
		Batches: batches, DeliveryCompleteCount: 6}
	gs, err := decodeSnapshotValue(sv.encode())
	if err != nil || !reflect.DeepEqual(gs, sv) {
		t.Fatalf("snapshot: %+v %v", gs, err)
	}
	uv := updateValue{SnapshotEpoch: 2, LeaderEpoch: 7, StartOffset: -1, Batches: batches[:1], DeliveryCompleteCount: -1}
	gu, err := decodeUpdateValue(uv.encode())
	if err != nil || !reflect.DeepEqual(gu, uv) {
		t.Fatalf("update: %+v %v", gu, err)
	}
	// Every truncation of a record is refused, never read past.
	enc := sv.encode()
	for n := range len(enc) {
		if _, err := decodeSnapshotValue(enc[:n]); err == nil {
			t.Fatalf("snapshot cut at %d decoded", n)
		}
	}
}

// FuzzStateRecords feeds arbitrary keys and values to the decoders of
// __share_group_state: they must refuse or decode without panicking, and
// what they decode must encode back to the same bytes.
func FuzzStateRecords(f *testing.F) {
	k := Key{Group: "g", TopicID: [16]byte{1}, Partition: 0}
	f.Add(encodeKey(recordSnapshot, k), snapshotValue{Batches: []StateBatch{{0, 1, Archived, 2}}, DeliveryCompleteCount: -1}.encode())
	f.Add(encodeKey(recordUpdate, k), updateValue{StartOffset: 5, DeliveryCompleteCount: 3}.encode())
	f.Add([]byte{0, 1, 0xff, 0xff}, []byte{0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, key, value []byte) {
		typ, gk, err := decodeKey(key)
		if err == nil && !bytes.Equal(encodeKey(typ, gk), key) {
			t.Fatalf("key %x decoded as %d %+v", key, typ, gk)
		}
		if v, err := decodeSnapshotValue(value); err == nil {
			if _, err := decodeSnapshotValue(v.encode()); err != nil {
				t.Fatalf("snapshot %+v does not decode again: %v", v, err)
			}
		}
		if v, err := decodeUpdateValue(value); err == nil {
			if _, err := decodeUpdateValue(v.encode()); err != nil {
				t.Fatalf("update %+v does not decode again: %v", v, err)
			}
		}
		s := &stateShard{states: map[Key]*entry{}, every: 2}
		_ = s.Replay(coordinatorEntry(key, value))
	})
}
