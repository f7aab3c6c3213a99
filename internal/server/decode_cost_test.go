package server

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// worstFrameBytes is about how large each generated worst-case body is:
// large enough that the request struct itself and size-class rounding
// are noise, small enough that thousands of decodes stay quick.
const worstFrameBytes = 64 << 10

// unknownTagKey is a tag number no request field uses yet and that still
// encodes in one byte, so a tag costs its sender the fewest bytes.
const unknownTagKey = 120

// maxRequestKey is above every API key kmsg knows.
const maxRequestKey = 200

// worstCase is one generated body and how much decoding it allocated.
type worstCase struct {
	key, version int16
	shape        string
	size         int
	allocated    uint64
}

func (w worstCase) factor() float64 { return float64(w.allocated) / float64(w.size) }

func (w worstCase) String() string {
	return fmt.Sprintf("%s v%d %s: %d bytes allocated %d (%.1fx)",
		kmsg.NameForKey(w.key), w.version, w.shape, w.size, w.allocated, w.factor())
}

// TestDecodeCostFactorsCoverWorstCases generates, for every request kmsg
// knows at every version, bodies built to make ReadFrom allocate as much
// as possible per byte: each array (at every depth) filled with as many
// minimal elements as fit, each element with its nullable strings
// present, with and without an unknown tag (a map per element), and
// bodies of nothing but distinct unknown tags. It checks that
// decodeCost's bound covers every one.
func TestDecodeCostFactorsCoverWorstCases(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes thousands of generated bodies")
	}
	worst := map[int16]worstCase{}
	var overhead uint64
	for key := int16(0); key <= maxRequestKey; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			continue
		}
		for version := int16(0); version <= req.MaxVersion(); version++ {
			for _, w := range worstCasesFor(t, key, version) {
				if w.allocated > uint64(decodeCost(w.size)) {
					t.Errorf("%v exceeds decodeCost %d", w, decodeCost(w.size))
				}
				if w.shape == "default" {
					overhead = max(overhead, w.allocated)
					continue
				}
				if prev, ok := worst[key]; !ok || w.factor() > prev.factor() {
					worst[key] = w
				}
			}
		}
	}
	var top worstCase
	for key := int16(0); key <= maxRequestKey; key++ {
		if w, ok := worst[key]; ok {
			t.Logf("worst %v", w)
			if w.factor() > top.factor() || top.size == 0 {
				top = w
			}
		}
	}
	t.Logf("worst of all: %v (decodeFactor %d); most a default body allocated: %d (decodeOverhead %d)",
		top, decodeFactor, overhead, decodeOverhead)
	if top.factor() < 50 {
		t.Errorf("the worst body found amplifies only %.1fx: the generator no longer builds the worst cases", top.factor())
	}
}

// worstCasesFor decodes every generated shape of one request version.
func worstCasesFor(t *testing.T, key, version int16) []worstCase {
	typ := reflect.TypeOf(kmsg.RequestForKey(key)).Elem()
	flexible := isFlexible(key, version)
	var out []worstCase
	measure := func(shape string, fill func(v reflect.Value, n int)) {
		// Size one element, then fill to about worstFrameBytes.
		probe := newRequest(key, version)
		fill(reflect.ValueOf(probe).Elem(), 1)
		one := len(probe.AppendTo(nil))
		empty := newRequest(key, version)
		base := len(empty.AppendTo(nil))
		if one <= base {
			return // the field is not in this version
		}
		n := max(worstFrameBytes/(one-base), 1)
		req := newRequest(key, version)
		fill(reflect.ValueOf(req).Elem(), n)
		body := req.AppendTo(nil)
		w := worstCase{key: key, version: version, shape: shape, size: len(body)}
		w.allocated = decodeAllocation(t, w, body)
		out = append(out, w)
	}
	empty := newRequest(key, version).AppendTo(nil)
	w := worstCase{key: key, version: version, shape: "default", size: len(empty)}
	w.allocated = decodeAllocation(t, w, empty)
	out = append(out, w)
	for _, chain := range sliceChains(typ, nil) {
		for level := range slicesIn(chain) {
			for _, tags := range []bool{false, true} {
				if tags && !flexible {
					continue
				}
				shape := fmt.Sprintf("%v many at %d tags=%v", chainNames(chain), level, tags)
				measure(shape, func(v reflect.Value, n int) { fillChain(v, chain, level, n, tags) })
			}
		}
	}
	if flexible {
		measure("distinct top-level tags", func(v reflect.Value, n int) {
			tags := v.FieldByName("UnknownTags").Addr()
			for i := range n {
				// Keys from 128 up: two bytes each, all distinct.
				tags.MethodByName("Set").Call([]reflect.Value{reflect.ValueOf(uint32(128 + i)), reflect.ValueOf([]byte{})})
			}
		})
	}
	return out
}

func newRequest(key, version int16) kmsg.Request {
	req := kmsg.RequestForKey(key)
	req.SetVersion(version)
	return req
}

func isFlexible(key, version int16) bool { return newRequest(key, version).IsFlexible() }

// decodeAllocation decodes body into a fresh request and returns the bytes
// allocated meanwhile. kmsg checks a declared array length against a
// minimum per element before allocating; where that minimum is above an
// element's real encoding, a sender pads the body, so padding is added
// until the body decodes.
func decodeAllocation(t *testing.T, w worstCase, body []byte) uint64 {
	padded := body
	for len(padded) <= 64*max(len(body), 1) {
		req := newRequest(w.key, w.version)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := req.ReadFrom(padded)
		runtime.ReadMemStats(&after)
		if err == nil {
			// What the padded body allocated, charged to the bytes
			// that carried it.
			return (after.TotalAlloc - before.TotalAlloc) * uint64(max(len(body), 1)) / uint64(max(len(padded), 1))
		}
		padded = append(padded, make([]byte, max(len(padded), 1))...)
	}
	t.Fatalf("%v: does not decode even padded", w)
	return 0
}

// sliceChains lists every path of fields from typ down to a slice, through
// structs, pointers to structs and slices of structs.
func sliceChains(typ reflect.Type, prefix []reflect.StructField) [][]reflect.StructField {
	var chains [][]reflect.StructField
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		chain := append(append([]reflect.StructField(nil), prefix...), f)
		switch {
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8:
			chains = append(chains, chain)
			if f.Type.Elem().Kind() == reflect.Struct {
				chains = append(chains, sliceChains(f.Type.Elem(), chain)...)
			}
		case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(kmsg.Tags{}):
			chains = append(chains, sliceChains(f.Type, chain)...)
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct:
			chains = append(chains, sliceChains(f.Type.Elem(), chain)...)
		}
	}
	return chains
}

// slicesIn counts the slices on a chain: the levels it can be filled at.
func slicesIn(chain []reflect.StructField) int {
	n := 0
	for _, f := range chain {
		if f.Type.Kind() == reflect.Slice {
			n++
		}
	}
	return n
}

func chainNames(chain []reflect.StructField) []string {
	names := make([]string, len(chain))
	for i, f := range chain {
		names[i] = f.Name
	}
	return names
}

// fillChain gives the slice at the level'th slice of the chain n worst
// elements and every other slice on the chain one.
func fillChain(v reflect.Value, chain []reflect.StructField, level, n int, tags bool) {
	if len(chain) == 0 {
		return
	}
	f := chain[0]
	field := v.FieldByIndex(f.Index)
	switch f.Type.Kind() {
	case reflect.Slice:
		elem := worstElement(f.Type.Elem(), tags)
		if f.Type.Elem().Kind() == reflect.Struct {
			fillChain(elem, chain[1:], level-1, n, tags)
		}
		count := 1
		if level == 0 {
			count = n
		}
		s := reflect.MakeSlice(f.Type, count, count)
		for j := range count {
			s.Index(j).Set(elem)
		}
		field.Set(s)
	case reflect.Pointer:
		p := reflect.New(f.Type.Elem())
		p.Elem().Set(worstElement(f.Type.Elem(), tags))
		fillChain(p.Elem(), chain[1:], level, n, tags)
		field.Set(p)
	case reflect.Struct:
		field.Set(worstElement(f.Type, tags))
		fillChain(field, chain[1:], level, n, tags)
	}
}

// worstElement is a minimal element that allocates the most: nullable
// strings present (a pointer each) and, when asked, an unknown tag (a map
// each), in it and in the structs it holds.
func worstElement(typ reflect.Type, tags bool) reflect.Value {
	e := reflect.New(typ).Elem()
	if typ.Kind() != reflect.Struct || typ == reflect.TypeOf(kmsg.Tags{}) {
		return e
	}
	if d := e.Addr().MethodByName("Default"); d.IsValid() {
		d.Call(nil)
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch {
		case !f.IsExported():
		case f.Type == reflect.TypeOf((*string)(nil)):
			e.Field(i).Set(reflect.ValueOf(new(string)))
		case f.Type == reflect.TypeOf(kmsg.Tags{}):
			if tags {
				e.Field(i).Addr().MethodByName("Set").Call([]reflect.Value{reflect.ValueOf(uint32(unknownTagKey)), reflect.ValueOf([]byte{})})
			}
		case f.Type.Kind() == reflect.Struct:
			e.Field(i).Set(worstElement(f.Type, tags))
		}
	}
	return e
}
