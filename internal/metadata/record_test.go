package metadata

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// Golden vectors written by hand from Kafka's JSON schemas
// (metadata/src/main/resources/common/metadata/*.json): frame version 1,
// api key, version as unsigned varints, then the flexible body. Spaces
// separate fields for the reader.

var (
	tid = UUID{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	did = UUID{0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf}
)

const (
	tidHex = "000102030405060708090a0b0c0d0e0f"
	didHex = "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "", "T", tidHex, "D", didHex).Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func ascii(s string) string { return hex.EncodeToString([]byte(s)) }

func strp(s string) *string { return &s }

type golden struct {
	name string
	rec  Record
	hex  string
}

func goldenRecords() []golden {
	return []golden{
		{"TopicRecord", &TopicRecord{Name: "foo", TopicID: tid},
			"01 02 00  04" + ascii("foo") + " T  00"},
		{"PartitionRecord v2", &PartitionRecord{Version: 2, PartitionID: 0, TopicID: tid,
			Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, Directories: []UUID{did}},
			"01 03 02  00000000 T  02 00000001  02 00000001  01  01  00000001  00000000  00000000  02 D  00"},
		{"PartitionRecord v2 tagged", &PartitionRecord{Version: 2, PartitionID: 7, TopicID: tid,
			Replicas: []int32{1, 2}, ISR: []int32{2}, RemovingReplicas: []int32{}, AddingReplicas: []int32{},
			Leader: 2, LeaderRecoveryState: LeaderRecovering, LeaderEpoch: 3, PartitionEpoch: 4,
			Directories: []UUID{did, did}, EligibleLeaderReplicas: []int32{1}},
			"01 03 02  00000007 T  03 00000001 00000002  02 00000002  01  01  00000002  00000003  00000004  03 D D" +
				"  02  00 01 01  01 05 02 00000001"},
		{"PartitionRecord v0", &PartitionRecord{Version: 0, PartitionID: 1, TopicID: tid,
			Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, Directories: []UUID{did}},
			// Directories do not exist in v0 and are not written.
			"01 03 00  00000001 T  02 00000001  02 00000001  01  01  00000001  00000000  00000000  00"},
		{"PartitionChangeRecord v2", &PartitionChangeRecord{Version: 2, PartitionID: 3, TopicID: tid,
			ISR: []int32{1, 2}, Leader: 2, LeaderRecoveryState: noRecoveryChange, Directories: []UUID{did}},
			"01 05 02  00000003 T  03  00 09 03 00000001 00000002  01 04 00000002  08 11 02 D"},
		{"PartitionChangeRecord nothing", NewPartitionChangeRecord(MaxMetadataVersion, tid, 0),
			"01 05 02  00000000 T  00"},
		{"RemoveTopicRecord", &RemoveTopicRecord{TopicID: tid},
			"01 09 00  T  00"},
		{"ConfigRecord set", &ConfigRecord{ResourceType: ConfigResourceTopic, ResourceName: "foo", Name: "retention.ms", Value: strp("1000")},
			"01 04 00  02  04" + ascii("foo") + "  0d" + ascii("retention.ms") + "  05" + ascii("1000") + "  00"},
		{"ConfigRecord delete", &ConfigRecord{ResourceType: ConfigResourceBroker, ResourceName: "", Name: "x", Value: nil},
			"01 04 00  04  01  02" + ascii("x") + "  00  00"},
		{"FeatureLevelRecord", &FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 27},
			"01 0c 00  11" + ascii("metadata.version") + "  001b  00"},
		{"ProducerIdsRecord", &ProducerIDsRecord{BrokerID: 1, BrokerEpoch: 5, NextProducerID: 1000},
			"01 0f 00  00000001  0000000000000005  00000000000003e8  00"},
		{"NoOpRecord", &NoOpRecord{}, "01 14 00  00"},
		// Both written by kafka-metadata 4.4.0's MetadataRecordSerde.
		{"DelegationTokenRecord", &DelegationTokenRecord{Owner: "User:alice", Requester: "User:admin", Renewers: []string{"User:bob"},
			IssueTimestamp: 1000, MaxTimestamp: 3000, ExpirationTimestamp: 2000, TokenID: "tok"},
			"01 0a 00  0b" + ascii("User:alice") + " 0b" + ascii("User:admin") + "  02 09" + ascii("User:bob") +
				"  00000000000003e8 0000000000000bb8 00000000000007d0  04" + ascii("tok") + "  00"},
		{"RemoveDelegationTokenRecord", &RemoveDelegationTokenRecord{TokenID: "tok"}, "01 1a 00  04" + ascii("tok") + "  00"},
		// Both written by kafka-metadata 4.4.0's MetadataRecordSerde.
		{"AccessControlEntryRecord", &AccessControlEntryRecord{ID: tid, ACL: ACL{ResourceType: ResourceTopic, ResourceName: "foo",
			PatternType: PatternPrefixed, Principal: "User:alice", Host: "10.0.0.0/8", Operation: OpRead, PermissionType: PermissionAllow}},
			"01 12 00  T  02  04" + ascii("foo") + "  04  0b" + ascii("User:alice") + "  0b" + ascii("10.0.0.0/8") + "  03  03  00"},
		{"RemoveAccessControlEntryRecord", &RemoveAccessControlEntryRecord{ID: tid}, "01 13 00  T  00"},
		{"ZkMigrationStateRecord", &ZkMigrationStateRecord{}, "01 15 00  00  00"},
		{"BeginTransactionRecord", &BeginTransactionRecord{Name: strp("Bootstrap records")},
			"01 17 00  01  00 12 12" + ascii("Bootstrap records")},
		{"BeginTransactionRecord null", &BeginTransactionRecord{}, "01 17 00  00"},
		{"EndTransactionRecord", &EndTransactionRecord{}, "01 18 00  00"},
		{"AbortTransactionRecord", &AbortTransactionRecord{Reason: strp("x")}, "01 19 00  01  00 02 02" + ascii("x")},
		{"RegisterBrokerRecord v3", &RegisterBrokerRecord{Version: 3, BrokerID: 1, IncarnationID: tid, BrokerEpoch: 10,
			EndPoints: []BrokerEndpoint{{Name: "PLAINTEXT", Host: "localhost", Port: 9092, SecurityProtocol: 0}},
			Features:  []BrokerFeature{{Name: "metadata.version", MinSupportedVersion: 7, MaxSupportedVersion: 27}},
			Fenced:    true, LogDirs: []UUID{did}},
			"01 00 03  00000001  00  T  000000000000000a" +
				"  02  0a" + ascii("PLAINTEXT") + " 0a" + ascii("localhost") + " 2384 0000 00" +
				"  02  11" + ascii("metadata.version") + " 0007 001b 00" +
				"  00  01  00  01 00 11 02 D"},
		{"RegisterBrokerRecord v0", &RegisterBrokerRecord{Version: 0, BrokerID: 2, IncarnationID: tid, BrokerEpoch: 1,
			Rack: strp("r"), InControlledShutdown: true, IsMigratingZkBroker: true},
			// IsMigratingZkBroker (v2+) and InControlledShutdown (v1+) are not written.
			"01 00 00  00000002  T  0000000000000001  01  01  02" + ascii("r") + "  00  00"},
		{"UnregisterBrokerRecord", &UnregisterBrokerRecord{BrokerID: 3, BrokerEpoch: 9},
			"01 01 00  00000003  0000000000000009  00"},
		{"BrokerRegistrationChangeRecord v2", &BrokerRegistrationChangeRecord{Version: 2, BrokerID: 1, BrokerEpoch: 10,
			Fenced: BrokerUnfenced, InControlledShutdown: 1},
			"01 11 02  00000001  000000000000000a  02  00 01 ff  01 01 01"},
	}
}

func TestRecordGolden(t *testing.T) {
	for _, g := range goldenRecords() {
		t.Run(g.name, func(t *testing.T) {
			want := unhex(t, g.hex)
			got := Encode(g.rec)
			if !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got %x\nwant %x", got, want)
			}
			dec, err := Decode(want)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if dec.APIKey() != g.rec.APIKey() || dec.RecordVersion() != g.rec.RecordVersion() {
				t.Fatalf("decoded key/version %d/%d, want %d/%d", dec.APIKey(), dec.RecordVersion(), g.rec.APIKey(), g.rec.RecordVersion())
			}
			if again := Encode(dec); !bytes.Equal(again, want) {
				t.Fatalf("re-encode:\n got %x\nwant %x", again, want)
			}
		})
	}
}

func TestDecodeFields(t *testing.T) {
	dec, err := Decode(unhex(t, "01 05 02  00000003 T  03  00 09 03 00000001 00000002  01 04 00000002  08 11 02 D"))
	if err != nil {
		t.Fatal(err)
	}
	pc := dec.(*PartitionChangeRecord)
	if pc.PartitionID != 3 || pc.TopicID != tid || pc.Leader != 2 || len(pc.ISR) != 2 || pc.ISR[1] != 2 ||
		pc.Replicas != nil || pc.LeaderRecoveryState != noRecoveryChange || len(pc.Directories) != 1 || pc.Directories[0] != did {
		t.Fatalf("decoded %+v", pc)
	}

	dec, err = Decode(unhex(t, "01 04 00  04  01  02"+ascii("x")+"  00  00"))
	if err != nil {
		t.Fatal(err)
	}
	if c := dec.(*ConfigRecord); c.Value != nil || c.ResourceName != "" || c.Name != "x" {
		t.Fatalf("decoded %+v", c)
	}
}

func TestDecodeSkipsUnknownTags(t *testing.T) {
	// A TopicRecord with an unknown tag 5 of 2 bytes.
	dec, err := Decode(unhex(t, "01 02 00  04"+ascii("foo")+" T  01 05 02 abcd"))
	if err != nil {
		t.Fatal(err)
	}
	if tr := dec.(*TopicRecord); tr.Name != "foo" {
		t.Fatalf("decoded %+v", tr)
	}
}

func TestDecodeUnknownType(t *testing.T) {
	// RegisterControllerRecord (27) is not modelled; its body is kept.
	in := unhex(t, "01 1b 00  aabbcc")
	dec, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := dec.(*UnknownRecord)
	if !ok || u.Key != 27 || !bytes.Equal(u.Body, []byte{0xaa, 0xbb, 0xcc}) {
		t.Fatalf("decoded %#v", dec)
	}
	if !bytes.Equal(Encode(u), in) {
		t.Fatal("unknown record does not re-encode to its input")
	}
}

func TestDecodeErrors(t *testing.T) {
	for name, h := range map[string]string{
		"empty":             "",
		"frame version 0":   "00 02 00 04" + ascii("foo") + " T 00",
		"frame version 2":   "02 02 00 04" + ascii("foo") + " T 00",
		"version too new":   "01 02 01 04" + ascii("foo") + " T 00",
		"truncated uuid":    "01 02 00 04" + ascii("foo") + " 0001",
		"trailing garbage":  "01 02 00 04" + ascii("foo") + " T 00 ff",
		"null name":         "01 02 00 00 T 00",
		"string too long":   "01 02 00 7f" + ascii("foo") + " T 00",
		"null replicas":     "01 03 00 00000000 T 00 02 00000001 01 01 00000001 00000000 00000000 00",
		"huge array":        "01 03 00 00000000 T ffffffff0f",
		"tag out of order":  "01 05 00 00000000 T 02 01 04 00000002 00 01 00",
		"tag overflows":     "01 05 00 00000000 T 01 01 09 00000002",
		"tag trailing":      "01 05 00 00000000 T 01 01 05 00000002 ff",
		"bad varint":        "01 ffffffffffffffffffff",
		"api key too large": "01 ffff03 00",
	} {
		if _, err := Decode(unhex(t, h)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestUUID(t *testing.T) {
	if MetadataTopicID.String() != "AAAAAAAAAAAAAAAAAAAAAQ" {
		t.Fatalf("metadata topic id renders as %s", MetadataTopicID)
	}
	u, err := ParseUUID(MetadataTopicID.String())
	if err != nil || u != MetadataTopicID {
		t.Fatalf("parse: %v %v", u, err)
	}
	if _, err := ParseUUID("short"); err == nil {
		t.Fatal("parsed a bad uuid")
	}
	for i := 0; i < 1000; i++ {
		r := RandomUUID()
		if r.IsZero() || r == MetadataTopicID || strings.HasPrefix(r.String(), "-") {
			t.Fatalf("random uuid %s is reserved", r)
		}
	}
	if (UUID{0xf8}).acceptable() {
		t.Fatal("uuid rendering with a leading '-' accepted")
	}
}

// Records Apache Kafka 4.4.0 wrote at metadata.version 4.4-IV2 when a fresh
// single node started (taken from its __cluster_metadata-0 log): the
// registration at v4 with cordoned dirs not yet reported (null), and the
// v3 change that then reports none cordoned (an empty array).
func TestDecodeKafka44BrokerRecords(t *testing.T) {
	register := mustHex(t, "01000400000001007e0e4b479c014831bcb0ca744c1b5ab90000000000000010020a504c41494e544558540a3132372e302e302e31990900000008116d657461646174612e76657273696f6e000700210021656c696769626c652e6c65616465722e7265706c696361732e76657273696f6e0000000100147472616e73616374696f6e2e76657273696f6e00000002001073747265616d732e76657273696f6e00000001000e67726f75702e76657273696f6e00000001000e6b726166742e76657273696f6e00000001000e73686172652e76657273696f6e000000020000010001001102895d977208dd230a64004e55e0f50e44")
	rec, err := Decode(register)
	if err != nil {
		t.Fatal(err)
	}
	rb := rec.(*RegisterBrokerRecord)
	if rb.Version != 4 || rb.BrokerEpoch != 16 || len(rb.Features) != 7 || rb.Features[0] != (BrokerFeature{FeatureMetadataVersion, 7, 33}) ||
		rb.CordonedLogDirs != nil || len(rb.LogDirs) != 1 || !rb.Fenced {
		t.Fatalf("RegisterBrokerRecord %+v", rb)
	}
	if got := Encode(rb); !bytes.Equal(got, register) {
		t.Fatalf("re-encoded\n%x\nwant\n%x", got, register)
	}
	change := mustHex(t, "01110300000001000000000000001001030101")
	rec, err = Decode(change)
	if err != nil {
		t.Fatal(err)
	}
	c := rec.(*BrokerRegistrationChangeRecord)
	if c.Version != 3 || c.BrokerEpoch != 16 || c.CordonedLogDirs == nil || len(c.CordonedLogDirs) != 0 || c.Fenced != BrokerFenceUnchanged {
		t.Fatalf("BrokerRegistrationChangeRecord %+v", c)
	}
	if got := Encode(c); !bytes.Equal(got, change) {
		t.Fatalf("re-encoded %x, want %x", got, change)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
