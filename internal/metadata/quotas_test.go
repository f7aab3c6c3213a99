package metadata

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Kafka 4.4.0's MetadataRecordSerde encoding of a ClientQuotaRecord for
// {client-id=app, user=<default>} producer_byte_rate=1048576.
const kafkaClientQuotaRecordHex = "010e00030a636c69656e742d69640461707000057573657200001370726f64756365725f627974655f7261746541300000000000000000"

func TestClientQuotaRecordMatchesKafkaEncoding(t *testing.T) {
	rec := &ClientQuotaRecord{
		Entity: []QuotaEntityData{{Type: QuotaEntityClientID, Name: strp("app")}, {Type: QuotaEntityUser}},
		Key:    "producer_byte_rate", Value: 1048576,
	}
	if got := hex.EncodeToString(Encode(rec)); got != kafkaClientQuotaRecordHex {
		t.Fatalf("encoding\n got %s\nwant %s", got, kafkaClientQuotaRecordHex)
	}
	raw, _ := hex.DecodeString(kafkaClientQuotaRecordHex)
	dec, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	q, ok := dec.(*ClientQuotaRecord)
	if !ok || q.Key != "producer_byte_rate" || q.Value != 1048576 || len(q.Entity) != 2 || q.Entity[1].Name != nil || *q.Entity[0].Name != "app" {
		t.Fatalf("decoded %#v", dec)
	}
}

func alwaysValidIP(string) bool { return true }

func f64(v float64) *float64 { return &v }

func TestAlterClientQuotasReplaysAndSnapshots(t *testing.T) {
	alice := NewQuotaEntity([]QuotaEntityData{{Type: QuotaEntityUser, Name: strp("alice")}})
	recs, results := EmptyImage().AlterClientQuotas([]QuotaAlteration{
		{Entity: alice, Ops: []QuotaOp{{Key: "producer_byte_rate", Value: f64(1024)}, {Key: "request_percentage", Value: f64(12.5)}}},
	}, alwaysValidIP)
	if len(results) != 1 || results[0].Err != nil || len(recs) != 2 {
		t.Fatalf("results %+v records %d", results, len(recs))
	}
	img := mustReplay(t, EmptyImage(), recs...)
	qs := img.ClientQuotas()
	if len(qs) != 1 || qs[0].Values["producer_byte_rate"] != 1024 || qs[0].Values["request_percentage"] != 12.5 {
		t.Fatalf("quotas %+v", qs)
	}
	// Setting the same value writes nothing; removing writes a Remove record.
	recs, _ = img.AlterClientQuotas([]QuotaAlteration{{Entity: alice, Ops: []QuotaOp{{Key: "producer_byte_rate", Value: f64(1024)}, {Key: "request_percentage"}}}}, alwaysValidIP)
	if len(recs) != 1 || !recs[0].(*ClientQuotaRecord).Remove {
		t.Fatalf("records %+v", recs)
	}
	img = mustReplay(t, img, recs...)
	again := mustReplay(t, EmptyImage(), img.Records()...)
	if qs := again.ClientQuotas(); len(qs) != 1 || len(qs[0].Values) != 1 || qs[0].Values["producer_byte_rate"] != 1024 {
		t.Fatalf("snapshot round trip %+v", qs)
	}
}

func TestAlterClientQuotasValidation(t *testing.T) {
	user := func(n *string) QuotaEntityData { return QuotaEntityData{Type: QuotaEntityUser, Name: n} }
	ip := func(n *string) QuotaEntityData { return QuotaEntityData{Type: QuotaEntityIP, Name: n} }
	cases := []struct {
		name   string
		entity []QuotaEntityData
		ops    []QuotaOp
		want   string
	}{
		{"empty entity", nil, []QuotaOp{{Key: "producer_byte_rate", Value: f64(1)}}, "Invalid empty client quota entity"},
		{"unknown type", []QuotaEntityData{{Type: "group", Name: strp("g")}}, []QuotaOp{{Key: "producer_byte_rate", Value: f64(1)}}, "Unhandled client quota entity type: group"},
		{"empty name", []QuotaEntityData{user(strp(""))}, []QuotaOp{{Key: "producer_byte_rate", Value: f64(1)}}, "Empty user not supported"},
		{"ip with user", []QuotaEntityData{user(nil), ip(strp("1.2.3.4"))}, []QuotaOp{{Key: "connection_creation_rate", Value: f64(1)}}, "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"},
		{"bad ip", []QuotaEntityData{ip(strp("no such host"))}, []QuotaOp{{Key: "connection_creation_rate", Value: f64(1)}}, "no such host is not a valid IP or resolvable host."},
		{"ip key on user", []QuotaEntityData{user(nil)}, []QuotaOp{{Key: "connection_creation_rate", Value: f64(1)}}, "Invalid configuration key connection_creation_rate"},
		{"zero", []QuotaEntityData{user(nil)}, []QuotaOp{{Key: "producer_byte_rate", Value: f64(0)}}, "Quota producer_byte_rate must be greater than 0"},
		{"fraction", []QuotaEntityData{user(nil)}, []QuotaOp{{Key: "producer_byte_rate", Value: f64(1.5)}}, "producer_byte_rate cannot be a fractional value."},
		{"too large int", []QuotaEntityData{ip(nil)}, []QuotaOp{{Key: "connection_creation_rate", Value: f64(3e9)}}, "Proposed value for connection_creation_rate is too large for an INT."},
		{"duplicate key", []QuotaEntityData{user(nil)}, []QuotaOp{{Key: "producer_byte_rate", Value: f64(1)}, {Key: "producer_byte_rate"}}, "Ignoring duplicate entity ClientQuotaEntity(entries={user=null})"},
	}
	validIP := func(s string) bool { return s != "no such host" }
	for _, c := range cases {
		recs, results := EmptyImage().AlterClientQuotas([]QuotaAlteration{{Entity: NewQuotaEntity(c.entity), Ops: c.ops}}, validIP)
		if len(recs) != 0 || len(results) != 1 || results[0].Err == nil {
			t.Fatalf("%s: records %d results %+v", c.name, len(recs), results)
		}
		if e := results[0].Err; !errors.Is(e, kerr.InvalidRequest) || e.Message != c.want {
			t.Errorf("%s: got %v, want INVALID_REQUEST %q", c.name, e, c.want)
		}
	}
}

func TestAlterClientQuotasDuplicateEntityKeepsFirstRecords(t *testing.T) {
	e := NewQuotaEntity([]QuotaEntityData{{Type: QuotaEntityClientID, Name: strp("c")}})
	recs, results := EmptyImage().AlterClientQuotas([]QuotaAlteration{
		{Entity: e, Ops: []QuotaOp{{Key: "consumer_byte_rate", Value: f64(10)}}},
		{Entity: e, Ops: []QuotaOp{{Key: "producer_byte_rate", Value: f64(10)}}},
	}, alwaysValidIP)
	if len(results) != 1 || results[0].Err == nil || results[0].Err.Message != "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=c})" {
		t.Fatalf("results %+v", results)
	}
	if len(recs) != 1 || recs[0].(*ClientQuotaRecord).Key != "consumer_byte_rate" {
		t.Fatalf("records %+v", recs)
	}
}

func TestClientQuotasReplayedWhenTheStoreReopens(t *testing.T) {
	log := &MemoryLog{}
	s, err := OpenStore(log, StoreOptions{Node: Node{ID: 1}})
	if err != nil {
		t.Fatal(err)
	}
	entity := NewQuotaEntity([]QuotaEntityData{{Type: QuotaEntityIP}})
	results, err := s.AlterClientQuotas([]QuotaAlteration{{Entity: entity, Ops: []QuotaOp{{Key: "connection_creation_rate", Value: f64(30)}}}}, alwaysValidIP, false)
	if err != nil || len(results) != 1 || results[0].Err != nil {
		t.Fatalf("alter: %v %+v", err, results)
	}
	again, err := OpenStore(log, StoreOptions{Node: Node{ID: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if qs := again.Image().ClientQuotas(); len(qs) != 1 || qs[0].Values["connection_creation_rate"] != 30 {
		t.Fatalf("after reopening: %+v", qs)
	}
}
