package record

// Kafka's record fields use zig-zag varints (protobuf style). These helpers
// never read past the slice and report n <= 0 on malformed input.

// readVarlong decodes a zig-zag varint of up to 10 bytes.
func readVarlong(b []byte) (int64, int) {
	var ux uint64
	var shift uint
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		ux |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(ux>>1) ^ -int64(ux&1), i + 1
		}
		shift += 7
	}
	return 0, 0
}

// readVarint decodes a zig-zag varint that must fit int32 (at most 5 bytes).
func readVarint(b []byte) (int32, int) {
	var ux uint32
	var shift uint
	for i := 0; i < len(b) && i < 5; i++ {
		c := b[i]
		if i == 4 && c > 0x0f {
			return 0, 0
		}
		ux |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return int32(ux>>1) ^ -int32(ux&1), i + 1
		}
		shift += 7
	}
	return 0, 0
}

// AppendVarlong appends a zig-zag varint.
func AppendVarlong(dst []byte, v int64) []byte {
	ux := uint64(v<<1) ^ uint64(v>>63)
	for ux >= 0x80 {
		dst = append(dst, byte(ux)|0x80)
		ux >>= 7
	}
	return append(dst, byte(ux))
}

// AppendVarint appends a zig-zag varint of an int32.
func AppendVarint(dst []byte, v int32) []byte { return AppendVarlong(dst, int64(v)) }

// VarlongSize is the encoded size of v.
func VarlongSize(v int64) int {
	ux := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for ux >= 0x80 {
		n++
		ux >>= 7
	}
	return n
}
