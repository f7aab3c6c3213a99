package server

import (
	"errors"
	"testing"
)

// nullFieldRequests are requests the fuzz target decodes bodies as: a
// flexible and a non-flexible version of each, with non-nullable arrays,
// strings and byte strings among their fields.
var nullFieldRequests = []struct{ key, version int16 }{
	{19, 4}, {19, 7}, {20, 3}, {20, 6}, {11, 5}, {11, 9}, {3, 4}, {3, 12}, {1, 11}, {1, 16},
}

// FuzzRefuseNulls checks, for any body that decodes, that refuseNulls
// does not panic and never refuses kmsg's own encoding of the decoded
// request, which cannot hold a null where none is allowed.
func FuzzRefuseNulls(f *testing.F) {
	for i, r := range nullFieldRequests {
		req := newRequest(r.key, r.version)
		f.Add(uint8(i), req.AppendTo(nil))
	}
	f.Add(uint8(0), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0x75, 0x30, 0})
	f.Add(uint8(1), []byte{0, 0, 0, 0x75, 0x30, 0, 0})
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		r := nullFieldRequests[int(which)%len(nullFieldRequests)]
		req := newRequest(r.key, r.version)
		if req.ReadFrom(body) != nil {
			return
		}
		refused := refuseNulls(req, body)
		if refused != nil && !errors.Is(refused, errNullField) {
			t.Fatalf("unexpected error %v", refused)
		}
		again := req.AppendTo(nil)
		decoded := newRequest(r.key, r.version)
		if err := decoded.ReadFrom(again); err != nil {
			t.Fatalf("kmsg does not decode its own encoding: %v", err)
		}
		if err := refuseNulls(decoded, again); err != nil {
			t.Fatalf("kmsg's own encoding refused: %v", err)
		}
	})
}

// TestRefuseNullsFindsNullWhereEmptyDecodes: a null and an empty array
// decode alike; only the null is refused.
func TestRefuseNullsFindsNullWhereEmptyDecodes(t *testing.T) {
	for _, c := range []struct {
		name        string
		version     int16
		null, empty []byte
	}{
		{"CreateTopics v4", 4, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0x75, 0x30, 0}, []byte{0, 0, 0, 0, 0, 0, 0x75, 0x30, 0}},
		{"CreateTopics v5", 5, []byte{0, 0, 0, 0x75, 0x30, 0, 0}, []byte{1, 0, 0, 0x75, 0x30, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for body, want := range map[*[]byte]error{&c.null: errNullField, &c.empty: nil} {
				req := newRequest(19, c.version)
				if err := req.ReadFrom(*body); err != nil {
					t.Fatal(err)
				}
				if err := refuseNulls(req, *body); !errors.Is(err, want) {
					t.Errorf("% x: %v, want %v", *body, err, want)
				}
			}
		})
	}
}
