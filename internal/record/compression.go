package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Decompression is bounded: every decoder stops once the output would pass
// maxBytes and reports ErrTooLarge, so a small hostile batch cannot make the
// broker allocate gigabytes. maxBytes <= 0 means DefaultMaxDecompressed.

// DefaultMaxDecompressed caps decompressed output when the caller gives no cap.
const DefaultMaxDecompressed = 64 << 20

// xerialMagic starts snappy-java's SnappyOutputStream framing, which is what
// the Java client writes; after it come version and compatible-version
// int32s, then blocks of (int32 length, raw snappy block).
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const xerialHeaderLen = 16

// Decompress appends the decompressed form of src (compressed with codec) to dst.
func Decompress(dst []byte, codec Codec, src []byte, maxBytes int) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDecompressed
	}
	switch codec {
	case CodecNone:
		if len(src) > maxBytes {
			return nil, ErrTooLarge
		}
		return append(dst, src...), nil
	case CodecGzip:
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(bytes.NewReader(src))
		} else {
			err = zr.Reset(bytes.NewReader(src))
		}
		if err != nil {
			return nil, ErrCorruptRecords
		}
		defer gzipReaders.Put(zr)
		return readLimited(dst, zr, maxBytes)
	case CodecSnappy:
		return decodeSnappy(dst, src, maxBytes)
	case CodecLZ4:
		zr, _ := lz4Readers.Get().(*lz4.Reader)
		if zr == nil {
			zr = lz4.NewReader(nil)
		}
		zr.Reset(bytes.NewReader(src))
		defer lz4Readers.Put(zr)
		return readLimited(dst, zr, maxBytes)
	case CodecZstd:
		zr, _ := zstdReaders.Get().(*zstd.Decoder)
		if zr == nil {
			var err error
			zr, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(64<<20))
			if err != nil {
				return nil, err
			}
		}
		if err := zr.Reset(bytes.NewReader(src)); err != nil {
			return nil, ErrCorruptRecords
		}
		defer zstdReaders.Put(zr)
		return readLimited(dst, zr, maxBytes)
	}
	return nil, ErrUnknownCodec
}

var (
	gzipReaders sync.Pool
	lz4Readers  sync.Pool
	zstdReaders sync.Pool
)

// readLimited reads r to EOF into dst, failing once more than max bytes arrive.
func readLimited(dst []byte, r io.Reader, max int) ([]byte, error) {
	start := len(dst)
	for {
		if len(dst) == cap(dst) {
			grow := cap(dst) - start
			if grow < 4096 {
				grow = 4096
			}
			if cap(dst)-start+grow > max+1 {
				grow = max + 1 - (cap(dst) - start)
			}
			if grow <= 0 {
				return nil, ErrTooLarge
			}
			dst = append(dst[:cap(dst)], make([]byte, grow)...)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if len(dst)-start > max {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			return nil, ErrCorruptRecords
		}
	}
}

func decodeSnappy(dst, src []byte, max int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return snappyBlock(dst, src, max, 0)
	}
	if len(src) < xerialHeaderLen {
		return nil, ErrCorruptRecords
	}
	start := len(dst)
	p := xerialHeaderLen
	for p < len(src) {
		if len(src)-p < 4 {
			return nil, ErrCorruptRecords
		}
		n := int(binary.BigEndian.Uint32(src[p:]))
		p += 4
		if n < 0 || n > len(src)-p {
			return nil, ErrCorruptRecords
		}
		var err error
		if dst, err = snappyBlock(dst, src[p:p+n], max, len(dst)-start); err != nil {
			return nil, err
		}
		p += n
	}
	return dst, nil
}

// snappyBlock appends one raw snappy block; used says how much output the
// caller already produced toward max.
func snappyBlock(dst, src []byte, max, used int) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return nil, ErrCorruptRecords
	}
	if n > max-used {
		return nil, ErrTooLarge
	}
	if cap(dst)-len(dst) < n {
		dst = append(dst, make([]byte, n)...)[:len(dst)]
	}
	out, err := s2.Decode(dst[len(dst):len(dst)+n], src)
	if err != nil || len(out) != n {
		return nil, ErrCorruptRecords
	}
	return dst[:len(dst)+n], nil
}

// Compress appends src compressed with codec to dst, in the framing Kafka's
// Java client produces (xerial for snappy, LZ4 frame with 64 KiB blocks).
func Compress(dst []byte, codec Codec, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	switch codec {
	case CodecNone:
		return append(dst, src...), nil
	case CodecGzip:
		w := gzip.NewWriter(buf)
		if _, err := w.Write(src); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case CodecSnappy:
		var hdr [xerialHeaderLen]byte
		copy(hdr[:], xerialMagic)
		binary.BigEndian.PutUint32(hdr[8:], 1)
		binary.BigEndian.PutUint32(hdr[12:], 1)
		buf.Write(hdr[:])
		for len(src) > 0 {
			chunk := src
			if len(chunk) > 32<<10 {
				chunk = chunk[:32<<10]
			}
			enc := s2.EncodeSnappy(nil, chunk)
			var l [4]byte
			binary.BigEndian.PutUint32(l[:], uint32(len(enc)))
			buf.Write(l[:])
			buf.Write(enc)
			src = src[len(chunk):]
		}
	case CodecLZ4:
		w := lz4.NewWriter(buf)
		if err := w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ConcurrencyOption(1)); err != nil {
			return nil, err
		}
		if _, err := w.Write(src); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case CodecZstd:
		w, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		out := w.EncodeAll(src, buf.Bytes())
		_ = w.Close()
		return out, nil
	default:
		return nil, ErrUnknownCodec
	}
	return buf.Bytes(), nil
}
