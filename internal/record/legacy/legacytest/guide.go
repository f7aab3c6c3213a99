// Package legacytest lays out Kafka 0.8-0.10 messages field by field as the
// 0.8 protocol guide describes them, for tests that must not share an
// encoder with the code they check.
package legacytest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/pierrec/lz4/v4"

	"github.com/karst-broker/karst/internal/record"
)

// Message is one message with its log overhead: Offset, MessageSize, Crc,
// MagicByte, Attributes, Timestamp (magic 1 only), Key, Value; a nil key
// or value is written with length -1.
func Message(offset int64, magic, attributes int8, timestamp int64, key, value []byte) []byte {
	var body bytes.Buffer
	body.WriteByte(byte(magic))
	body.WriteByte(byte(attributes))
	if magic == 1 {
		_ = binary.Write(&body, binary.BigEndian, timestamp)
	}
	for _, b := range [][]byte{key, value} {
		if b == nil {
			_ = binary.Write(&body, binary.BigEndian, int32(-1))
			continue
		}
		_ = binary.Write(&body, binary.BigEndian, int32(len(b)))
		body.Write(b)
	}
	var out bytes.Buffer
	_ = binary.Write(&out, binary.BigEndian, offset)
	_ = binary.Write(&out, binary.BigEndian, int32(4+body.Len()))
	_ = binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(body.Bytes()))
	out.Write(body.Bytes())
	return out.Bytes()
}

// Wrapper is a compressed message holding the message set inner, its value
// compressed with codec (lz4 as a standard frame with a correct header
// checksum, as magic 1 producers write it).
func Wrapper(magic int8, codec record.Codec, offset, timestamp int64, inner []byte) ([]byte, error) {
	var value []byte
	if codec == record.CodecLZ4 {
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		if err := w.Apply(lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
			return nil, err
		}
		if _, err := w.Write(inner); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		value = buf.Bytes()
	} else {
		var err error
		if value, err = record.Compress(nil, codec, inner); err != nil {
			return nil, err
		}
	}
	return Message(offset, magic, int8(codec), timestamp, nil, value), nil
}
