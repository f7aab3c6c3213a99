package legacy

import (
	"encoding/binary"

	"github.com/pierrec/lz4/v4"
)

// Kafka's message formats v0 and v1 frame LZ4 as the LZ4 frame format, but
// clients writing magic 0 computed the frame descriptor's checksum over the
// magic number too (KAFKA-3160), and Kafka kept that broken checksum for
// magic 0 so that those clients can read what it sends them. A library frame
// reader refuses such a frame, so the frame is walked here and each block
// handed to the library's block decoder.

const (
	lz4FrameMagic   = 0x184D2204
	lz4FlagVersion  = 0x40
	lz4FlagIndep    = 0x20
	lz4FlagBlockSum = 0x10
	lz4FlagSize     = 0x08
	lz4FlagSum      = 0x04
	lz4Block64KB    = 0x40
	lz4BlockMax64KB = 64 << 10
	lz4Uncompressed = 0x80000000
)

// decodeLZ4Frame appends the decompressed content of one LZ4 frame to dst,
// accepting the correct and the broken descriptor checksum alike, and failing
// once more than max bytes would be produced.
func decodeLZ4Frame(dst, src []byte, max int) ([]byte, error) {
	be := binary.LittleEndian
	if len(src) < 7 || be.Uint32(src) != lz4FrameMagic {
		return nil, ErrCorrupt
	}
	flg, bd := src[4], src[5]
	if flg&0xC0 != lz4FlagVersion {
		return nil, ErrCorrupt
	}
	blockMax := 0
	switch (bd >> 4) & 0x7 {
	case 4:
		blockMax = 64 << 10
	case 5:
		blockMax = 256 << 10
	case 6:
		blockMax = 1 << 20
	case 7:
		blockMax = 4 << 20
	default:
		return nil, ErrCorrupt
	}
	p := 6
	if flg&lz4FlagSize != 0 {
		p += 8
	}
	p++ // the descriptor checksum, correct or broken
	if p > len(src) {
		return nil, ErrCorrupt
	}
	produced := 0
	for {
		if len(src)-p < 4 {
			return nil, ErrCorrupt
		}
		word := be.Uint32(src[p:])
		p += 4
		if word == 0 {
			break
		}
		n := int(word &^ lz4Uncompressed)
		if n > blockMax || len(src)-p < n {
			return nil, ErrCorrupt
		}
		block := src[p : p+n]
		p += n
		if flg&lz4FlagBlockSum != 0 {
			p += 4
		}
		if word&lz4Uncompressed != 0 {
			if produced+n > max {
				return nil, errTooLarge
			}
			dst = append(dst, block...)
			produced += n
			continue
		}
		room := min(blockMax, max-produced)
		start := len(dst)
		dst = append(dst, make([]byte, room)...)
		got, err := lz4.UncompressBlock(block, dst[start:])
		if err != nil {
			if room < blockMax {
				return nil, errTooLarge
			}
			return nil, ErrCorrupt
		}
		dst = dst[:start+got]
		produced += got
	}
	if flg&lz4FlagSum != 0 {
		p += 4
	}
	if p > len(src) {
		return nil, ErrCorrupt
	}
	return dst, nil
}

// appendLZ4Frame appends src as one LZ4 frame as Kafka's legacy writer
// frames it: 64 KiB independent blocks, no checksums, and for magic 0 the
// descriptor checksum computed the broken way its clients expect.
func appendLZ4Frame(dst, src []byte, brokenChecksum bool) []byte {
	desc := []byte{0x04, 0x22, 0x4D, 0x18, lz4FlagVersion | lz4FlagIndep, lz4Block64KB}
	sum := desc[4:]
	if brokenChecksum {
		sum = desc
	}
	dst = append(dst, desc...)
	dst = append(dst, byte(xxh32(sum)>>8))
	var buf [lz4BlockMax64KB + lz4BlockMax64KB/255 + 16]byte
	var c lz4.Compressor
	for len(src) > 0 {
		chunk := src[:min(len(src), lz4BlockMax64KB)]
		src = src[len(chunk):]
		n, err := c.CompressBlock(chunk, buf[:])
		if err != nil || n == 0 || n >= len(chunk) {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(chunk))|lz4Uncompressed)
			dst = append(dst, chunk...)
			continue
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
		dst = append(dst, buf[:n]...)
	}
	return binary.LittleEndian.AppendUint32(dst, 0)
}
