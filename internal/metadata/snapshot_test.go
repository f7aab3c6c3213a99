package metadata

import (
	"bytes"
	"testing"
)

func encodeAll(recs []Record) []byte {
	var out []byte
	for _, r := range recs {
		out = AppendEncode(out, r)
	}
	return out
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := openStore(t, newMemLog())
	if _, err := s.CreateTopic(CreateTopicRequest{Name: "b", NumPartitions: 3, ReplicationFactor: 1, Configs: map[string]*string{"retention.ms": strp("1")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTopic(CreateTopicRequest{Name: "a", NumPartitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AllocateProducerIDs(1, SingleNodeBrokerEpoch); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit([]Record{&RegisterBrokerRecord{Version: 3, BrokerID: 1, BrokerEpoch: 4, LogDirs: []UUID{did}}}); err != nil {
		t.Fatal(err)
	}
	img := s.Image()

	snap := BuildSnapshot(3, 100, 200, img.Records())
	first, _, err := ParseBatch(snap)
	if err != nil || !first.Control || first.LeaderEpoch != 3 || first.BaseOffset != 0 {
		t.Fatalf("header batch %+v %v", first.BatchHeader, err)
	}
	if typ, _ := ParseControlKey(first.Records[0].Key); typ != ControlSnapshotHeader {
		t.Fatalf("first control record %d", typ)
	}
	var recs []Record
	if err := ForEachMetadataRecord(snap, func(v []byte) error {
		r, err := Decode(v)
		recs = append(recs, r)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if fl, ok := recs[0].(*FeatureLevelRecord); !ok || fl.Name != FeatureMetadataVersion {
		t.Fatalf("snapshot does not start with metadata.version: %#v", recs[0])
	}
	back, err := EmptyImage().Replay(recs...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeAll(back.Records()), encodeAll(img.Records())) {
		t.Fatal("image rebuilt from its snapshot differs")
	}
	if SnapshotFileName(1234, 5) != "00000000000000001234-0000000005.checkpoint" {
		t.Fatal(SnapshotFileName(1234, 5))
	}
}

func TestBootstrapSnapshot(t *testing.T) {
	b := BootstrapSnapshot(1)
	var n int
	var batches []Batch
	for rest := b; len(rest) > 0; {
		bt, r, err := ParseBatch(rest)
		if err != nil {
			t.Fatal(err)
		}
		batches, rest = append(batches, bt), r
		n += len(bt.Records)
	}
	if len(batches) != 3 || !batches[0].Control || batches[1].Control || !batches[2].Control {
		t.Fatalf("%d batches", len(batches))
	}
	if len(batches[1].Records) != len(BootstrapFeatures()) || batches[1].BaseOffset != 1 || batches[2].BaseOffset != int64(1+len(BootstrapFeatures())) {
		t.Fatalf("data batch %+v", batches[1].BatchHeader)
	}
}
