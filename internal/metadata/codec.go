package metadata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Primitive encoders and a bounds-checked reader for Kafka's flexible
// message encoding (KIP-482): compact strings and arrays carry length+1 as
// an unsigned varint (0 means null), and every struct ends with a tagged
// field section.

// errShort is returned when the input ends inside a field.
var errShort = errors.New("metadata: input truncated")

// checkCount bounds array lengths read from untrusted input so a corrupt
// length cannot ask for a huge allocation: n is the least number of bytes
// the elements need, which cannot exceed what is left.
func checkCount(n, remaining int) error {
	if n > remaining {
		return fmt.Errorf("metadata: array of %d elements exceeds remaining %d bytes", n, remaining)
	}
	return nil
}

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendInt8(b []byte, v int8) []byte   { return append(b, byte(v)) }
func appendInt16(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func appendInt32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func appendInt64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendUUID(b []byte, u UUID) []byte { return append(b, u[:]...) }

func appendCompactString(b []byte, s string) []byte {
	b = appendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

func appendCompactNullableString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return appendCompactString(b, *s)
}

// appendCompactInt32s writes a compact array; a nil slice is written as
// null, which the caller only does for nullable fields.
func appendCompactInt32s(b []byte, vs []int32) []byte {
	if vs == nil {
		return append(b, 0)
	}
	b = appendUvarint(b, uint64(len(vs))+1)
	for _, v := range vs {
		b = appendInt32(b, v)
	}
	return b
}

func appendCompactUUIDs(b []byte, vs []UUID) []byte {
	if vs == nil {
		return append(b, 0)
	}
	b = appendUvarint(b, uint64(len(vs))+1)
	for _, v := range vs {
		b = appendUUID(b, v)
	}
	return b
}

// taggedField is one entry of a tagged field section, already encoded.
type taggedField struct {
	tag  uint32
	data []byte
}

// appendTagged writes a tagged field section; fields must be in ascending
// tag order, as the protocol requires.
func appendTagged(b []byte, fields []taggedField) []byte {
	b = appendUvarint(b, uint64(len(fields)))
	for _, f := range fields {
		b = appendUvarint(b, uint64(f.tag))
		b = appendUvarint(b, uint64(len(f.data)))
		b = append(b, f.data...)
	}
	return b
}

// reader consumes a byte slice; the first error sticks and every later read
// returns zero values, so decoders check r.err once at the end.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail(errShort)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// uvarint reads an unsigned varint. Kafka's are all Java ints, at most 5
// bytes, so longer or larger encodings are refused as Kafka refuses them.
func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[:min(len(r.b), 5)])
	if n <= 0 || v > math.MaxUint32 {
		r.fail(errors.New("metadata: bad unsigned varint"))
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) int8() int8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

func (r *reader) bool() bool {
	b := r.take(1)
	if b == nil {
		return false
	}
	return b[0] != 0
}

func (r *reader) int16() int16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (r *reader) uint16() uint16 { return uint16(r.int16()) }

func (r *reader) int32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (r *reader) int64() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func (r *reader) uuid() UUID {
	var u UUID
	copy(u[:], r.take(16))
	return u
}

// compactLen returns the element count of a compact string or array, or -1
// for null.
func (r *reader) compactLen() int {
	v := r.uvarint()
	if r.err != nil {
		return 0
	}
	if v == 0 {
		return -1
	}
	if v-1 > uint64(len(r.b)) {
		r.fail(errShort)
		return 0
	}
	return int(v - 1)
}

func (r *reader) compactString() string {
	n := r.compactLen()
	if n < 0 {
		r.fail(errors.New("metadata: null in non-nullable string"))
		return ""
	}
	return string(r.take(n))
}

func (r *reader) compactNullableString() *string {
	n := r.compactLen()
	if n < 0 || r.err != nil {
		return nil
	}
	s := string(r.take(n))
	return &s
}

// arrayLen reads a compact array length with each element at least
// minSize bytes; -1 means null.
func (r *reader) arrayLen(minSize int) int {
	n := r.compactLen()
	if n > 0 {
		if err := checkCount(n*minSize, len(r.b)); err != nil {
			r.fail(err)
			return 0
		}
	}
	return n
}

func (r *reader) compactInt32s(nullable bool) []int32 {
	n := r.arrayLen(4)
	if r.err != nil {
		return nil
	}
	if n < 0 {
		if !nullable {
			r.fail(errNullArray)
		}
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = r.int32()
	}
	return out
}

func (r *reader) compactUUIDs(nullable bool) []UUID {
	n := r.arrayLen(16)
	if r.err != nil {
		return nil
	}
	if n < 0 {
		if !nullable {
			r.fail(errNullArray)
		}
		return nil
	}
	out := make([]UUID, n)
	for i := range out {
		out[i] = r.uuid()
	}
	return out
}

// tagged reads a tagged field section, calling fn for each field with a
// reader limited to that field's bytes. fn reports whether it knew the tag;
// unknown tags are skipped, as Kafka does, and a known tag must consume its
// field exactly.
func (r *reader) tagged(fn func(tag uint32, fr *reader) bool) {
	n := r.uvarint()
	if r.err != nil {
		return
	}
	if err := checkCount(int(min(n, math.MaxInt32))*2, len(r.b)); err != nil {
		r.fail(err)
		return
	}
	var last int64 = -1
	for i := uint64(0); i < n && r.err == nil; i++ {
		tag := uint32(r.uvarint())
		size := r.uvarint()
		if r.err != nil {
			return
		}
		if int64(tag) <= last {
			r.fail(fmt.Errorf("metadata: tagged field %d out of order", tag))
			return
		}
		last = int64(tag)
		if size > uint64(len(r.b)) {
			r.fail(errShort)
			return
		}
		fr := &reader{b: r.take(int(size))}
		known := fn != nil && fn(tag, fr)
		if known && fr.err == nil && len(fr.b) != 0 {
			fr.err = fmt.Errorf("metadata: %d trailing bytes in tagged field %d", len(fr.b), tag)
		}
		if known && fr.err != nil {
			r.fail(fr.err)
		}
	}
}

// skipTagged reads and ignores a tagged field section.
func (r *reader) skipTagged() { r.tagged(nil) }

var errNullArray = errors.New("metadata: null in non-nullable array")

var errNullBytes = errors.New("metadata: null in non-nullable bytes")
