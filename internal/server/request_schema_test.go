package server

import (
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
