package legacy

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/karst-broker/karst/internal/record"
)

// chunkSourceBytes is how much of the log one lazy step converts (at least
// one whole batch), Kafka 3.x's LazyDownConversionRecordsSend MAX_READ_SIZE.
const chunkSourceBytes = 128 << 10

// DownConverter serves the v2 batches of a slice of a segment file as a
// MessageSet of magic 0 or 1, converting them a chunk at a time as the
// response is written, so a fetch never holds more than a chunk of
// converted data (Kafka 3.x's LazyDownConversionRecords, KIP-283).
//
// Its Size is decided before the first byte is written, as the response's
// length prefix needs: the slice's length, or the first converted batch's
// if that is larger (a consumer must always get one whole batch). Output
// past Size is cut (the consumer drops the partial message and fetches
// from it again); output short of Size is padded with an overflow message
// whose length runs past the response, which consumers ignore.
type DownConverter struct {
	src      io.ReaderAt
	pos, end int64
	magic    int8
	from     int64
	keep     func(record.Batch) bool
	size     int64
	emitted  int64
	first    []byte // converted before the first byte was written
	buf      []byte // the source batches of one chunk
	done     bool   // no more batches to convert
	padding  bool   // the overflow message has begun
}

// NewDownConverter converts the first batches of the length bytes of src
// at pos that keep accepts until one yields a message. keep sees every
// batch in order, control batches too (which are then dropped all the
// same: magic 0 and 1 cannot express them); nil keeps all. from is
// the fetch offset. A first batch in zstd, which magic 0 and 1 lack, is
// ErrUnsupportedCodec, which Kafka answers UNSUPPORTED_COMPRESSION_TYPE.
func NewDownConverter(src io.ReaderAt, pos, length int64, magic int8, from int64, keep func(record.Batch) bool) (*DownConverter, error) {
	c := &DownConverter{src: src, pos: pos, end: pos + length, magic: magic, from: from, keep: keep}
	for len(c.first) == 0 && !c.done {
		var err error
		if c.first, err = c.convert(nil, 0); errors.Is(err, ErrUnsupportedCodec) {
			return nil, err
		}
	}
	c.size = max(length, int64(len(c.first)), 1)
	return c, nil
}

// Size is the number of bytes Next returns in all.
func (c *DownConverter) Size() int64 { return c.size }

// Next appends the next chunk of the set to dst; once Size bytes have been
// returned it appends nothing.
func (c *DownConverter) Next(dst []byte) []byte {
	remaining := c.size - c.emitted
	if remaining <= 0 {
		return dst
	}
	start := len(dst)
	if c.first != nil {
		dst, c.first = append(dst, c.first...), nil
	}
	for len(dst) == start && !c.done {
		// A failure past the first batch cannot change the answer any
		// more: what was converted is sent and the rest padded.
		dst, _ = c.convert(dst, chunkSourceBytes)
	}
	if len(dst) == start {
		dst = c.appendPadding(dst, remaining)
	}
	if n := int64(len(dst) - start); n > remaining {
		dst = dst[:start+int(remaining)]
	}
	c.emitted += int64(len(dst) - start)
	return dst
}

// convert appends the conversion of the next batches, at least one and at
// most budget bytes of them, to dst; done is set at the slice's end, at a
// partial batch, or on any fault.
func (c *DownConverter) convert(dst []byte, budget int64) ([]byte, error) {
	read := int64(0)
	for !c.done {
		var head [record.LogOverhead]byte
		if c.end-c.pos < record.LogOverhead {
			c.done = true
			break
		}
		if _, err := c.src.ReadAt(head[:], c.pos); err != nil {
			c.done = true
			return dst, err
		}
		size := record.LogOverhead + int64(int32(binary.BigEndian.Uint32(head[8:])))
		if size < record.HeaderSize || c.pos+size > c.end {
			c.done = true // a partial batch: the consumer's to skip
			break
		}
		if read > 0 && read+size > budget {
			break
		}
		if int64(cap(c.buf)) < size {
			c.buf = make([]byte, size)
		}
		data := c.buf[:size]
		if _, err := c.src.ReadAt(data, c.pos); err != nil {
			c.done = true
			return dst, err
		}
		c.pos += size
		read += size
		b, _, err := record.ParseBatch(data, len(data))
		if err != nil {
			c.done = true
			return dst, err
		}
		if (c.keep != nil && !c.keep(b)) || b.IsControl() {
			continue
		}
		out, err := AppendDownConverted(dst, b, c.magic, c.from, record.DefaultMaxDecompressed)
		if err != nil {
			c.done = true
			return dst, err
		}
		dst = out
	}
	return dst, nil
}

// appendPadding appends up to chunkSourceBytes of an overflow message:
// offset -1 and a size larger than what is left, then zeros, as Kafka pads
// a converted set that came out shorter than announced. Old consumers take
// it for a partial message at the end of the response and stop there.
func (c *DownConverter) appendPadding(dst []byte, remaining int64) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, min(remaining, chunkSourceBytes))...)
	if !c.padding {
		c.padding = true
		var head [LogOverhead]byte
		binary.BigEndian.PutUint64(head[:], ^uint64(0))
		binary.BigEndian.PutUint32(head[8:], uint32(max(remaining+1, record.HeaderSize)))
		copy(dst[start:], head[:])
	}
	return dst
}
