package server

import (
	"bytes"
	"reflect"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Checking a body for what Kafka's parser refuses (collections above its
// caps, nulls where the schema has none) before kmsg decodes it needs the
// request's schema: which fields a version has, in what order, how each
// is encoded and which may be null. kmsg carries no schema, but its
// encoder follows one, so the schema is read off the encoder: for each
// field of a request's Go struct, changing the field and encoding the
// request again shows whether the version has the field (the bytes
// change), whether it is a regular or a tagged field (a regular one grows
// by exactly what its value grows, a tagged one by a tag header too), and
// whether it is nullable (a nil value encodes otherwise than an empty
// one). Nested structs are probed inside a request holding one of each.
// A version whose schema cannot be read this way (a field of a kind no
// request had when this was written) has none, and its bodies are checked
// as before: nulls by re-encoding after the decode (null_fields.go), no
// caps. TestRequestSchemasWalkEveryEncoding checks the schemas against
// kmsg's encodings of every request and version.

// wireKind is how a field is encoded.
type wireKind uint8

const (
	wireFixed          wireKind = iota // width bytes: integers, booleans, floats, uuids
	wireString                         // a length (int16, or compact), then the bytes
	wireBytes                          // a length (int32, or compact), then the bytes
	wireArray                          // a length (int32, or compact), then the elements
	wireStruct                         // the fields, then a tag section in flexible versions
	wireNullableStruct                 // an int8, negative for null, then the struct
)

// wireField is one field of a version's schema. Tagged fields are not
// listed: a tag section is skipped whole, by its sizes.
type wireField struct {
	kind     wireKind
	width    int         // wireFixed
	nullable bool        // wireString, wireBytes, wireArray
	elem     *wireField  // wireArray
	fields   []wireField // wireStruct, wireNullableStruct
}

// requestSchema is one request version's schema; fields is nil when it
// could not be read.
type requestSchema struct {
	flexible bool
	fields   []wireField
	known    bool
}

// schemas caches each key and version's schema once read, indexed
// without hashing since every request's body is walked.
var schemas [256][64]atomic.Pointer[requestSchema]

// schemaFor returns the schema of key at version, reading it off kmsg's
// encoder the first time (two readers at once may both read it).
func schemaFor(key, version int16) *requestSchema {
	if key < 0 || int(key) >= len(schemas) || version < 0 || int(version) >= len(schemas[0]) {
		return &requestSchema{} // no request kmsg knows
	}
	slot := &schemas[key][version]
	if s := slot.Load(); s != nil {
		return s
	}
	s := readSchema(key, version)
	slot.Store(s)
	return s
}

// readSchema probes kmsg's encoder for key at version's schema.
func readSchema(key, version int16) *requestSchema {
	req := kmsg.RequestForKey(key)
	if req == nil {
		return &requestSchema{}
	}
	req.SetVersion(version)
	p := schemaProbe{key: key, version: version, flexible: req.IsFlexible()}
	fields, ok := p.structFields(nil, reflect.TypeOf(req).Elem())
	return &requestSchema{flexible: p.flexible, fields: fields, known: ok}
}

// schemaProbe encodes requests of one key and version with one field
// changed at a time.
type schemaProbe struct {
	key, version int16
	flexible     bool
}

var (
	tagsType        = reflect.TypeOf(kmsg.Tags{})
	stringPtrType   = reflect.TypeOf((*string)(nil))
	bytesType       = reflect.TypeOf([]byte(nil))
	probeUnknownTag = uint32(9999) // two bytes of key, one of size: a tag section grows by 3
)

// encode builds a request in which each field on path (indexes from the
// request's struct down) holds one default element or value, applies
// change to the struct path ends at, and encodes it. ok is false if
// kmsg's encoder panicked on the value.
func (p schemaProbe) encode(path []int, change func(reflect.Value)) (out []byte, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	req := kmsg.RequestForKey(p.key)
	req.SetVersion(p.version)
	v := reflect.ValueOf(req).Elem()
	for _, i := range path {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Slice:
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), defaultValue(f.Type().Elem())))
			v = f.Index(0)
		case reflect.Pointer:
			e := reflect.New(f.Type().Elem())
			e.Elem().Set(defaultValue(f.Type().Elem()))
			f.Set(e)
			v = e.Elem()
		default:
			v = f
		}
	}
	if change != nil {
		change(v)
	}
	return req.AppendTo(nil), true
}

// defaultValue is a value of typ as kmsg's Default sets it.
func defaultValue(typ reflect.Type) reflect.Value {
	v := reflect.New(typ)
	if d := v.MethodByName("Default"); d.IsValid() {
		d.Call(nil)
	}
	return v.Elem()
}

// growth encodes with change applied to field i and returns whether the
// encoding differs from base and by how many bytes it grew.
func (p schemaProbe) growth(path []int, base []byte, i int, change func(reflect.Value)) (changed bool, grew int, ok bool) {
	out, ok := p.encode(path, func(v reflect.Value) { change(v.Field(i)) })
	if !ok {
		return false, 0, false
	}
	return !bytes.Equal(out, base), len(out) - len(base), true
}

// structFields reads the schema of struct type typ at path. ok is false
// if some field could not be read.
func (p schemaProbe) structFields(path []int, typ reflect.Type) ([]wireField, bool) {
	base, ok := p.encode(path, nil)
	if !ok {
		return nil, false
	}
	fields := []wireField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type == tagsType || len(path) == 0 && f.Name == "Version" {
			continue // kmsg's own: the tag section, the request's version
		}
		if !f.IsExported() {
			return nil, false
		}
		field, present, ok := p.field(path, base, i, f.Type)
		if !ok {
			return nil, false
		}
		switch last := len(fields) - 1; {
		case !present:
		case field.kind == wireFixed && last >= 0 && fields[last].kind == wireFixed:
			fields[last].width += field.width // one skip for a run of fixed fields
		default:
			fields = append(fields, field)
		}
	}
	return fields, true
}

// field reads field i (of type typ) of the struct at path. present is
// false for a field the version lacks and for a tagged field.
func (p schemaProbe) field(path []int, base []byte, i int, typ reflect.Type) (field wireField, present, ok bool) {
	switch {
	case typ == stringPtrType:
		return p.variableLength(path, base, i, wireString,
			func(v reflect.Value, s string) { v.Set(reflect.ValueOf(&s)) },
			func(v reflect.Value) { v.Set(reflect.Zero(typ)) })
	case typ == bytesType:
		return p.variableLength(path, base, i, wireBytes,
			func(v reflect.Value, s string) { v.SetBytes([]byte(s)) },
			func(v reflect.Value) { v.SetBytes(nil) })
	}
	switch typ.Kind() {
	case reflect.String:
		return p.variableLength(path, base, i, wireString,
			func(v reflect.Value, s string) { v.SetString(s) }, nil)
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float64, reflect.Array:
		return p.fixed(path, base, i, typ)
	case reflect.Slice:
		return p.array(path, base, i, typ)
	case reflect.Struct:
		return p.inlineStruct(path, base, i, typ)
	case reflect.Pointer:
		if typ.Elem().Kind() != reflect.Struct {
			return wireField{}, false, false
		}
		// Kafka's nullable struct: probed as regular (no request tags one).
		fields, ok := p.structFields(append(append([]int(nil), path...), i), typ.Elem())
		if !ok {
			return wireField{}, false, false
		}
		changed, _, ok := p.growth(path, base, i, func(v reflect.Value) {
			e := reflect.New(typ.Elem())
			e.Elem().Set(defaultValue(typ.Elem()))
			v.Set(e)
		})
		return wireField{kind: wireNullableStruct, fields: fields}, changed, ok
	}
	return wireField{}, false, false
}

// fixed reads a fixed-width field: a changed value encodes in as many
// bytes if the field is regular, adds a tag if it is tagged.
func (p schemaProbe) fixed(path []int, base []byte, i int, typ reflect.Type) (wireField, bool, bool) {
	small, large := fixedProbes(typ)
	changed, grew, ok := p.growth(path, base, i, small)
	if !ok || !changed || grew > 0 {
		return wireField{}, false, ok && grew >= 0
	}
	// A varint would grow with a larger value; no request field is one.
	if _, grewLarge, ok := p.growth(path, base, i, large); !ok || grewLarge != 0 {
		return wireField{}, false, false
	}
	return wireField{kind: wireFixed, width: int(typ.Size())}, true, true
}

// fixedProbes returns two changes of a fixed-width value: to another
// value of the same size, and to one as large as its type allows.
func fixedProbes(typ reflect.Type) (small, large func(reflect.Value)) {
	switch typ.Kind() {
	case reflect.Bool:
		flip := func(v reflect.Value) { v.SetBool(!v.Bool()) }
		return flip, flip
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) { v.SetInt(v.Int() ^ 1) },
			func(v reflect.Value) { v.SetInt(v.Int() ^ (1 << (typ.Bits() - 2))) }
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v reflect.Value) { v.SetUint(v.Uint() ^ 1) },
			func(v reflect.Value) { v.SetUint(v.Uint() ^ (1 << (typ.Bits() - 1))) }
	case reflect.Float64:
		return func(v reflect.Value) { v.SetFloat(v.Float() + 1) },
			func(v reflect.Value) { v.SetFloat(v.Float() + 1e300) }
	}
	flip := func(v reflect.Value) { v.Index(0).SetUint(v.Index(0).Uint() ^ 1) } // a uuid
	return flip, flip
}

// variableLength reads a string or byte string: set to one byte it grows
// by one and to two by two if regular, by a tag header more if tagged.
// setNull, for a field that can hold a null, tells nullable versions by
// the null encoding otherwise than the empty value.
func (p schemaProbe) variableLength(path []int, base []byte, i int, kind wireKind,
	set func(v reflect.Value, s string), setNull func(v reflect.Value)) (wireField, bool, bool) {
	changed, one, ok := p.growth(path, base, i, func(v reflect.Value) { set(v, "a") })
	if !ok || !changed {
		return wireField{}, false, ok
	}
	_, two, ok := p.growth(path, base, i, func(v reflect.Value) { set(v, "aa") })
	if !ok || one != 1 || two != 2 {
		return wireField{}, false, ok && one > 1 // tagged, or unreadable
	}
	field := wireField{kind: kind}
	if setNull != nil {
		null, ok := p.encode(path, func(v reflect.Value) { setNull(v.Field(i)) })
		empty, ok2 := p.encode(path, func(v reflect.Value) { set(v.Field(i), "") })
		if !ok || !ok2 {
			return wireField{}, false, false
		}
		field.nullable = !bytes.Equal(null, empty)
	}
	return field, true, true
}

// array reads a slice: one element grows it by some size and two by twice
// that if regular; a tagged one grows by a tag header more.
func (p schemaProbe) array(path []int, base []byte, i int, typ reflect.Type) (wireField, bool, bool) {
	withElements := func(n int) func(reflect.Value) {
		return func(v reflect.Value) {
			s := reflect.MakeSlice(typ, n, n)
			for j := range n {
				s.Index(j).Set(defaultValue(typ.Elem()))
			}
			v.Set(s)
		}
	}
	changed, one, ok := p.growth(path, base, i, withElements(1))
	if !ok || !changed {
		return wireField{}, false, ok
	}
	_, two, ok := p.growth(path, base, i, withElements(2))
	if !ok || one <= 0 || two != 2*one {
		return wireField{}, false, ok && one > 0 // tagged, or unreadable
	}
	null, ok := p.encode(path, func(v reflect.Value) { v.Field(i).Set(reflect.Zero(typ)) })
	empty, ok2 := p.encode(path, func(v reflect.Value) { withElements(0)(v.Field(i)) })
	if !ok || !ok2 {
		return wireField{}, false, false
	}
	elem, ok := p.element(append(append([]int(nil), path...), i), typ.Elem())
	return wireField{kind: wireArray, nullable: !bytes.Equal(null, empty), elem: elem}, ok, ok
}

// element reads the schema of an array's elements of type typ; path ends
// at the array.
func (p schemaProbe) element(path []int, typ reflect.Type) (*wireField, bool) {
	switch typ.Kind() {
	case reflect.Struct:
		fields, ok := p.structFields(path, typ)
		return &wireField{kind: wireStruct, fields: fields}, ok
	case reflect.String:
		return &wireField{kind: wireString}, true
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float64, reflect.Array:
		return &wireField{kind: wireFixed, width: int(typ.Size())}, true
	}
	return nil, false
}

// inlineStruct reads a struct held by value. In flexible versions an
// unknown tag on it grows the encoding by the tag's 3 bytes if it is
// regular; a tagged struct appears whole.
func (p schemaProbe) inlineStruct(path []int, base []byte, i int, typ reflect.Type) (wireField, bool, bool) {
	inner := append(append([]int(nil), path...), i)
	if p.flexible {
		changed, grew, ok := p.growth(path, base, i, func(v reflect.Value) {
			v.FieldByName("UnknownTags").Addr().Interface().(*kmsg.Tags).Set(probeUnknownTag, nil)
		})
		if !ok || !changed || grew != 3 {
			return wireField{}, false, ok && grew != 3
		}
	}
	fields, ok := p.structFields(inner, typ)
	return wireField{kind: wireStruct, fields: fields}, ok && (p.flexible || len(fields) > 0), ok
}
