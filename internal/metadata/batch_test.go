package metadata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestControlGolden(t *testing.T) {
	for _, g := range []struct {
		name string
		rec  ControlRecord
		hex  string
	}{
		{"LeaderChangeMessage v0", &LeaderChangeMessage{LeaderID: 1, Voters: []Voter{{VoterID: 1}}, GrantingVoters: []Voter{{VoterID: 1}}},
			"0000  00000001  02 00000001 00  02 00000001 00  00"},
		{"LeaderChangeMessage v1", &LeaderChangeMessage{Version: 1, LeaderID: 1, Voters: []Voter{{VoterID: 1, VoterDirectoryID: did}}},
			"0001  00000001  02 00000001 D 00  01  00"},
		{"SnapshotHeaderRecord", &SnapshotHeaderRecord{LastContainedLogTimestamp: 0x0102},
			"0000  0000000000000102  00"},
		{"SnapshotFooterRecord", &SnapshotFooterRecord{}, "0000 00"},
		{"KRaftVersionRecord", &KRaftVersionRecord{KRaftVersion: 1}, "0000 0001 00"},
		{"VotersRecord", &VotersRecord{Voters: []VoterInfo{{VoterID: 1, VoterDirectoryID: did,
			Endpoints: []VoterEndpoint{{Name: "CONTROLLER", Host: "localhost", Port: 9093}}, MinKRaftVersion: 0, MaxKRaftVersion: 1}}},
			"0000  02  00000001 D  02 0b" + ascii("CONTROLLER") + " 0a" + ascii("localhost") + " 2385 00  0000 0001 00  00  00"},
	} {
		t.Run(g.name, func(t *testing.T) {
			want := unhex(t, g.hex)
			if got := EncodeControl(g.rec); !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got %x\nwant %x", got, want)
			}
			dec, err := DecodeControl(g.rec.ControlType(), want)
			if err != nil {
				t.Fatal(err)
			}
			if again := EncodeControl(dec); !bytes.Equal(again, want) {
				t.Fatalf("re-encode:\n got %x\nwant %x", again, want)
			}
		})
	}
	if _, err := DecodeControl(ControlLeaderChange, unhex(t, "0002 00000001 01 01 00")); err == nil {
		t.Fatal("LeaderChangeMessage with version 2 decoded")
	}
	if _, err := DecodeControl(ControlCommit, nil); err == nil {
		t.Fatal("commit marker decoded as a KRaft control record")
	}
}

func TestControlKey(t *testing.T) {
	k := ControlKey(ControlLeaderChange)
	if !bytes.Equal(k, []byte{0, 0, 0, 2}) {
		t.Fatalf("key %x", k)
	}
	if typ, err := ParseControlKey(k); err != nil || typ != ControlLeaderChange {
		t.Fatalf("parsed %v %v", typ, err)
	}
	if _, err := ParseControlKey([]byte{0, 0, 0}); err == nil {
		t.Fatal("short key parsed")
	}
	if _, err := ParseControlKey([]byte{0xff, 0xff, 0, 2}); err == nil {
		t.Fatal("negative key version parsed")
	}
}

// TestBatchAgainstKmsg checks BuildBatch against franz-go's independent
// RecordBatch and Record decoders, and the CRC against the spec: CRC-32C
// from the attributes to the end.
func TestBatchAgainstKmsg(t *testing.T) {
	recs := []Record{&TopicRecord{Name: "foo", TopicID: tid}, &NoOpRecord{}}
	b := BuildMetadataBatch(42, 3, 1700000000000, recs)

	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(b); err != nil {
		t.Fatal(err)
	}
	if kb.FirstOffset != 42 || kb.PartitionLeaderEpoch != 3 || kb.Magic != 2 || kb.Attributes != 0 ||
		kb.LastOffsetDelta != 1 || kb.FirstTimestamp != 1700000000000 || kb.MaxTimestamp != 1700000000000 ||
		kb.ProducerID != -1 || kb.ProducerEpoch != -1 || kb.FirstSequence != -1 || kb.NumRecords != 2 ||
		int(kb.Length) != len(b)-12 {
		t.Fatalf("header %+v", kb)
	}
	if want := crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)); uint32(kb.CRC) != want {
		t.Fatalf("crc %x, want %x", uint32(kb.CRC), want)
	}
	rest := kb.Records
	for i, want := range recs {
		var kr kmsg.Record
		if err := kr.ReadFrom(rest); err != nil {
			t.Fatal(err)
		}
		if kr.Key != nil || kr.OffsetDelta != int32(i) || kr.TimestampDelta64 != 0 || len(kr.Headers) != 0 ||
			!bytes.Equal(kr.Value, Encode(want)) {
			t.Fatalf("record %d: %+v", i, kr)
		}
		l, n := binary.Varint(rest)
		rest = rest[n+int(l):]
	}
	if len(rest) != 0 {
		t.Fatalf("%d bytes after the records", len(rest))
	}

	parsed, tail, err := ParseBatch(append(b, 9, 9))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tail, []byte{9, 9}) || parsed.BaseOffset != 42 || parsed.LeaderEpoch != 3 || parsed.Control ||
		len(parsed.Records) != 2 || parsed.LastOffsetDelta != 1 || !bytes.Equal(parsed.Records[1].Value, Encode(recs[1])) {
		t.Fatalf("parsed %+v", parsed)
	}
}

func TestControlBatch(t *testing.T) {
	lc := &LeaderChangeMessage{LeaderID: 1, Voters: []Voter{{VoterID: 1}}, GrantingVoters: []Voter{{VoterID: 1}}}
	b := BuildControlBatch(0, 1, 5, lc)
	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(b); err != nil {
		t.Fatal(err)
	}
	if kb.Attributes != 0x20 {
		t.Fatalf("attributes %x", kb.Attributes)
	}
	bt, _, err := ParseBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	typ, err := ParseControlKey(bt.Records[0].Key)
	if err != nil || typ != ControlLeaderChange || !bt.Control {
		t.Fatalf("type %v err %v", typ, err)
	}
	if _, err := DecodeControl(typ, bt.Records[0].Value); err != nil {
		t.Fatal(err)
	}
}

func TestForEachMetadataRecord(t *testing.T) {
	var stream []byte
	stream = append(stream, BuildControlBatch(0, 1, 0, &LeaderChangeMessage{LeaderID: 1})...)
	stream = append(stream, BuildMetadataBatch(1, 1, 0, []Record{&NoOpRecord{}, &TopicRecord{Name: "a", TopicID: tid}})...)
	stream = append(stream, BuildMetadataBatch(3, 1, 0, []Record{&RemoveTopicRecord{TopicID: tid}})...)
	var keys []int16
	err := ForEachMetadataRecord(stream, func(v []byte) error {
		r, err := Decode(v)
		if err != nil {
			return err
		}
		keys = append(keys, r.APIKey())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] != KeyNoOp || keys[1] != KeyTopic || keys[2] != KeyRemoveTopic {
		t.Fatalf("keys %v", keys)
	}
	if err := ForEachMetadataRecord(stream[:len(stream)-3], func([]byte) error { return nil }); !errors.Is(err, ErrBatchTruncated) {
		t.Fatalf("torn tail: %v", err)
	}
}

func TestParseBatchErrors(t *testing.T) {
	good := BuildMetadataBatch(0, 1, 0, []Record{&NoOpRecord{}})
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for name, b := range map[string][]byte{
		"short":      good[:20],
		"truncated":  good[:len(good)-1],
		"bad magic":  mutate(func(b []byte) []byte { b[16] = 1; return b }),
		"bad crc":    mutate(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }),
		"tiny len":   mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[8:], 3); return b }),
		"compressed": rebuildCRC(mutate(func(b []byte) []byte { b[22] |= 1; return b })),
		"count high": rebuildCRC(mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[57:], 1000); return b })),
		"count low":  rebuildCRC(mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[57:], 0); return b })),
	} {
		if _, _, err := ParseBatch(b); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func rebuildCRC(b []byte) []byte {
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
	return b
}
