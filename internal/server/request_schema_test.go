package server

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestRequestSchemasWalkEveryEncoding reads the schema of every request
// kmsg knows at every version and walks kmsg's own encodings with it: the
// default request, and requests with every array, at every depth, holding
// elements with their nullable strings present and unknown tags. A walk
// must end exactly at the body's end with nothing refused; a wrong width,
// a missed field or a tagged field taken for a regular one would end it
// elsewhere. Every version must have a schema.
func TestRequestSchemasWalkEveryEncoding(t *testing.T) {
	versions := 0
	for key := int16(0); key <= maxRequestKey; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			continue
		}
		typ := reflect.TypeOf(req).Elem()
		for version := int16(0); version <= req.MaxVersion(); version++ {
			versions++
			schema := readSchema(key, version)
			if !schema.known {
				t.Errorf("%s v%d: no schema", kmsg.NameForKey(key), version)
				continue
			}
			bodies := map[string][]byte{"default": newRequest(key, version).AppendTo(nil)}
			for _, chain := range sliceChains(typ, nil) {
				for level := range slicesIn(chain) {
					for _, tags := range []bool{false, true} {
						r := newRequest(key, version)
						fillChain(reflect.ValueOf(r).Elem(), chain, level, 3, tags)
						bodies[fmt.Sprint(chainNames(chain), level, tags)] = r.AppendTo(nil)
					}
				}
			}
			for shape, body := range bodies {
				w := bodyWalk{src: body, flexible: schema.flexible}
				if err := w.structure(schema.fields); err != nil || len(w.src) != 0 {
					t.Errorf("%s v%d %s: walk %v with %d of %d bytes left", kmsg.NameForKey(key), version, shape, err, len(w.src), len(body))
				}
			}
		}
	}
	t.Logf("%d request versions", versions)
}

// TestSchemaNullsAgreeWithReencoding checks the schemas' nullability, as
// the walk applies it, against an independent judge: refuseNulls, which
// finds a null where kmsg's own encoding of the decoded request has an
// empty length. Every empty array or byte string length in kmsg's
// encodings of every request and version (the default request, and every
// array at every depth holding one element) is turned null in turn; where
// kmsg still decodes the body, the walk must refuse it exactly when
// re-encoding shows a null where the schema has none.
func TestSchemaNullsAgreeWithReencoding(t *testing.T) {
	checked, unjudged := 0, 0
	for key := int16(0); key <= maxRequestKey; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil || key == produceKey { // Produce is walked by produceDecodeCost
			continue
		}
		typ := reflect.TypeOf(req).Elem()
		// A nullable struct's presence byte is 1, and 0 is present too
		// for Kafka's parser; re-encoding, which writes 1, cannot tell.
		markers := holdsNullableStruct(typ)
		for version := int16(0); version <= req.MaxVersion(); version++ {
			bodies := [][]byte{newRequest(key, version).AppendTo(nil)}
			for _, chain := range sliceChains(typ, nil) {
				r := newRequest(key, version)
				fillChain(reflect.ValueOf(r).Elem(), chain, slicesIn(chain)-1, 1, false)
				bodies = append(bodies, r.AppendTo(nil))
			}
			for _, body := range bodies {
				for i := range body {
					null := nullAt(body, i, isFlexible(key, version))
					if null == nil {
						continue
					}
					decoded := newRequest(key, version)
					if decoded.ReadFrom(null) != nil {
						continue // kmsg refuses it too
					}
					checked++
					judged := errors.Is(refuseNulls(decoded, null), errNullField)
					walked, err := refuseBeforeDecoding(decoded, null)
					refused := walked && errors.Is(err, errNullField)
					if judged && !refused && markers {
						unjudged++
						continue // the judge takes a presence byte of 0 for a null
					}
					if refused && !judged && !judgeable(decoded, null) {
						unjudged++
						continue // the judge sees only a first difference that is no length
					}
					if refused != judged || !walked {
						t.Errorf("%s v%d, null at byte %d of % x: walk refused=%v (walked %v, %v), re-encoding finds a null: %v",
							kmsg.NameForKey(key), version, i, body, refused, walked, err, judged)
					}
				}
			}
		}
	}
	t.Logf("%d bodies with a null length compared, %d of them beyond what re-encoding can judge", checked, unjudged)
}

// judgeable reports whether refuseNulls can judge body, which decodes into
// req: where kmsg's encoding of req first differs from body, it has an
// empty length (and not, say, a boolean that body has as 0xff).
func judgeable(req kmsg.Request, body []byte) bool {
	again := req.AppendTo(nil)
	i := 0
	for i < len(body) && i < len(again) && body[i] == again[i] {
		i++
	}
	if req.IsFlexible() {
		return i < len(again) && again[i] == 0x01
	}
	return i+4 <= len(again) && bytes.Equal(again[i:i+4], []byte{0, 0, 0, 0})
}

// nullAt returns body with the empty length at i made null (compact 0x01
// to 0x00, or 0x00000000 to 0xffffffff), or nil if no empty length can
// start there.
func nullAt(body []byte, i int, flexible bool) []byte {
	switch {
	case flexible && body[i] == 0x01:
		out := bytes.Clone(body)
		out[i] = 0
		return out
	case !flexible && i+4 <= len(body) && bytes.Equal(body[i:i+4], []byte{0, 0, 0, 0}):
		out := bytes.Clone(body)
		copy(out[i:], []byte{0xff, 0xff, 0xff, 0xff})
		return out
	}
	return nil
}

// holdsNullableStruct reports whether typ has, at any depth, a pointer to
// a struct: a nullable struct.
func holdsNullableStruct(typ reflect.Type) bool {
	for i := range typ.NumField() {
		switch f := typ.Field(i).Type; {
		case f.Kind() == reflect.Pointer && f.Elem().Kind() == reflect.Struct:
			return true
		case f.Kind() == reflect.Slice && f.Elem().Kind() == reflect.Struct && holdsNullableStruct(f.Elem()),
			f.Kind() == reflect.Struct && holdsNullableStruct(f):
			return true
		}
	}
	return false
}
