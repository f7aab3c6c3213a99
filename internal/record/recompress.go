package record

import "encoding/binary"

// Recompress returns the batch with its records compressed by codec
// instead, as a broker does for a topic whose compression.type is not
// "producer". The header is kept (offsets, timestamps, producer fields)
// with the codec bits, the length and the CRC updated. A batch already in
// codec is returned as it is. maxDecompressed bounds the records' size.
func Recompress(dst []byte, b Batch, codec Codec, maxDecompressed int) (Batch, error) {
	if b.Codec() == codec {
		return b, nil
	}
	raw, err := b.Records(nil, maxDecompressed)
	if err != nil {
		return nil, err
	}
	out, err := Compress(append(dst[:0], b[:HeaderSize]...), codec, raw)
	if err != nil {
		return nil, err
	}
	nb := Batch(out)
	attrs := nb.Attributes()&^CompressionMask | int16(codec)
	binary.BigEndian.PutUint16(nb[offAttributes:], uint16(attrs))
	binary.BigEndian.PutUint32(nb[offBatchLength:], uint32(len(nb)-LogOverhead))
	nb.UpdateCRC()
	return nb, nil
}
