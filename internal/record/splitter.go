package record

import "encoding/binary"

// DefaultMaxBatchSize bounds a batch when the caller sets no limit; it is
// far above Kafka's message.max.bytes default and only guards against
// nonsense lengths.
const DefaultMaxBatchSize = 1 << 30

// Splitter walks concatenated batches. The zero value is not useful; use
// NewSplitter. A Splitter does not copy: each Batch aliases the buffer.
type Splitter struct {
	buf []byte
	pos int
	// MaxBatchSize rejects any batch larger than this (0 = DefaultMaxBatchSize).
	MaxBatchSize int
	// SkipCRC leaves CRC checking to the caller (e.g. when the bytes were
	// checked before); length and magic are still checked.
	SkipCRC bool
}

// NewSplitter returns a Splitter over buf that checks CRCs.
func NewSplitter(buf []byte, maxBatchSize int) Splitter {
	return Splitter{buf: buf, MaxBatchSize: maxBatchSize}
}

// Pos is the byte position of the next batch.
func (s *Splitter) Pos() int { return s.pos }

// Done reports whether every byte has been consumed.
func (s *Splitter) Done() bool { return s.pos >= len(s.buf) }

// Next returns the next batch. At the end of the buffer it returns (nil, nil).
// On an error it returns a *BatchError and does not advance, so Pos is the
// length of the valid prefix.
func (s *Splitter) Next() (Batch, error) {
	rest := s.buf[s.pos:]
	if len(rest) == 0 {
		return nil, nil
	}
	if len(rest) < LogOverhead+5 { // up to and including magic
		return nil, &BatchError{Pos: s.pos, Err: ErrTruncated}
	}
	length := int64(int32(binary.BigEndian.Uint32(rest[offBatchLength:])))
	max := s.MaxBatchSize
	if max <= 0 {
		max = DefaultMaxBatchSize
	}
	size := length + LogOverhead
	if size < HeaderSize || size > int64(max) {
		return nil, &BatchError{Pos: s.pos, Err: ErrLengthOutOfRange}
	}
	if rest[offMagic] != Magic {
		return nil, &BatchError{Pos: s.pos, Err: ErrBadMagic}
	}
	if int64(len(rest)) < size {
		return nil, &BatchError{Pos: s.pos, Err: ErrTruncated}
	}
	b := Batch(rest[:size:size])
	if !s.SkipCRC && !b.ValidCRC() {
		return nil, &BatchError{Pos: s.pos, Err: ErrBadCRC}
	}
	s.pos += int(size)
	return b, nil
}

// PeekSize reads the total size and magic of the batch starting at b
// without validating it; ok is false when fewer than 17 bytes are given.
// Readers that scan segment files 17 bytes at a time use it.
func PeekSize(b []byte) (size int64, magic int8, ok bool) {
	if len(b) < LogOverhead+5 {
		return 0, 0, false
	}
	return int64(int32(binary.BigEndian.Uint32(b[offBatchLength:]))) + LogOverhead, int8(b[offMagic]), true
}

// Validate checks that b is exactly one batch: length field consistent with
// len(b), magic 2 and CRC.
func Validate(b []byte) error {
	s := Splitter{buf: b}
	batch, err := s.Next()
	if err != nil {
		return err
	}
	if len(batch) != len(b) {
		return &BatchError{Pos: 0, Err: ErrLengthOutOfRange}
	}
	return nil
}
