package legacy

import (
	"encoding/binary"
	"math/bits"
)

// xxh32 is XXH32 with seed 0, which only the LZ4 frame descriptor's checksum
// needs here: the frame library keeps its own implementation internal, and
// the descriptors it hashes are at most 15 bytes.
func xxh32(b []byte) uint32 {
	const (
		p1 = 2654435761
		p2 = 2246822519
		p3 = 3266489917
		p4 = 668265263
		p5 = 374761393
	)
	n := uint32(len(b))
	var h uint32
	if len(b) >= 16 {
		var v1, v2, v3, v4 uint32 = p1, p2, 0, 0
		v1 += p2
		v4 -= p1
		round := func(v, in uint32) uint32 { return bits.RotateLeft32(v+in*p2, 13) * p1 }
		for len(b) >= 16 {
			v1 = round(v1, binary.LittleEndian.Uint32(b))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = p5
	}
	h += n
	for len(b) >= 4 {
		h = bits.RotateLeft32(h+binary.LittleEndian.Uint32(b)*p3, 17) * p4
		b = b[4:]
	}
	for _, c := range b {
		h = bits.RotateLeft32(h+uint32(c)*p5, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}
