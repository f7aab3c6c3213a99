package record

import "io"

// Header is one record header. Value is nil for a null value.
type Header struct {
	Key   []byte
	Value []byte
}

// Record is one decoded record. Key and Value alias the decoded buffer and
// are nil when null. Headers is reused between calls to RecordReader.Next.
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte
	Value          []byte
	Headers        []Header
}

// RecordReader decodes the records of one batch from uncompressed bytes.
type RecordReader struct {
	data  []byte
	left  int32 // records still expected per the batch's recordCount
	pos   int
	count int32
}

// NewRecordReader reads count records from data (uncompressed records bytes).
func NewRecordReader(data []byte, count int32) RecordReader {
	return RecordReader{data: data, left: count, count: count}
}

// Next decodes the next record into r. It returns io.EOF after the last
// record, or ErrCorruptRecords if the bytes do not match the format or the
// count. r.Headers is truncated and refilled, so callers can reuse r.
func (rr *RecordReader) Next(r *Record) error {
	if rr.left <= 0 {
		if rr.pos != len(rr.data) {
			return ErrCorruptRecords // trailing bytes after the last record
		}
		return io.EOF
	}
	b := rr.data[rr.pos:]
	length, n := readVarint(b)
	if n <= 0 || length < 0 || int(length) > len(b)-n {
		return ErrCorruptRecords
	}
	body := b[n : n+int(length)]
	if err := decodeRecord(body, r); err != nil {
		return err
	}
	rr.pos += n + int(length)
	rr.left--
	return nil
}

func decodeRecord(b []byte, r *Record) error {
	if len(b) < 1 {
		return ErrCorruptRecords
	}
	r.Attributes = int8(b[0])
	p := 1
	var n int
	if r.TimestampDelta, n = readVarlong(b[p:]); n <= 0 {
		return ErrCorruptRecords
	}
	p += n
	if r.OffsetDelta, n = readVarint(b[p:]); n <= 0 {
		return ErrCorruptRecords
	}
	p += n
	var err error
	if r.Key, p, err = readBytes(b, p, true); err != nil {
		return err
	}
	if r.Value, p, err = readBytes(b, p, true); err != nil {
		return err
	}
	nh, n := readVarint(b[p:])
	if n <= 0 || nh < 0 || int(nh) > len(b)-p { // each header needs >= 2 bytes
		return ErrCorruptRecords
	}
	p += n
	r.Headers = r.Headers[:0]
	for i := int32(0); i < nh; i++ {
		var h Header
		if h.Key, p, err = readBytes(b, p, false); err != nil {
			return err
		}
		if h.Value, p, err = readBytes(b, p, true); err != nil {
			return err
		}
		r.Headers = append(r.Headers, h)
	}
	if p != len(b) {
		return ErrCorruptRecords
	}
	return nil
}

// readBytes reads a varint-length-prefixed byte string; -1 means null.
func readBytes(b []byte, p int, nullable bool) ([]byte, int, error) {
	l, n := readVarint(b[p:])
	if n <= 0 {
		return nil, p, ErrCorruptRecords
	}
	p += n
	if l < 0 {
		if l != -1 || !nullable {
			return nil, p, ErrCorruptRecords
		}
		return nil, p, nil
	}
	if int(l) > len(b)-p {
		return nil, p, ErrCorruptRecords
	}
	return b[p : p+int(l) : p+int(l)], p + int(l), nil
}

// Records returns the uncompressed records bytes of the batch, decompressing
// into dst (reused when large enough) with at most maxBytes of output.
// For an uncompressed batch it returns the batch's own bytes.
func (b Batch) Records(dst []byte, maxBytes int) ([]byte, error) {
	if b.Codec() == CodecNone {
		return b.RecordsData(), nil
	}
	return Decompress(dst[:0], b.Codec(), b.RecordsData(), maxBytes)
}

// ForEachRecord decodes every record of the batch, calling fn for each.
// The Record passed to fn is reused; copy what must outlive the call.
func (b Batch) ForEachRecord(maxDecompressed int, fn func(*Record) error) error {
	data, err := b.Records(nil, maxDecompressed)
	if err != nil {
		return err
	}
	rr := NewRecordReader(data, b.RecordCount())
	var r Record
	for {
		err := rr.Next(&r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
}
