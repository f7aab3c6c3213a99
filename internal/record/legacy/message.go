package legacy

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/karst-broker/karst/internal/record"
)

// Sizes of the fixed parts of a message.
const (
	// LogOverhead is the offset and size before each message.
	LogOverhead = 12
	// headerV0 is crc, magic, attributes, key length and value length.
	headerV0 = 4 + 1 + 1 + 4 + 4
	// headerV1 adds the timestamp.
	headerV1 = headerV0 + 8
	// MinMessageSize is the smallest message with its log overhead.
	MinMessageSize = LogOverhead + headerV0

	attrCodecMask     = 0x07
	attrLogAppendTime = 0x08
)

// Errors a MessageSet is refused with; the handler answers each with
// CORRUPT_MESSAGE and appends nothing of the set.
var (
	ErrCorrupt       = errors.New("legacy: corrupt message")
	ErrBadCRC        = errors.New("legacy: message CRC does not match")
	ErrBadMagic      = errors.New("legacy: magic is neither 0 nor 1")
	ErrNestedWrapper = errors.New("legacy: a compressed message inside a compressed message")
	ErrInnerOffsets  = errors.New("legacy: inner offsets of a compressed message go backwards")
	ErrMixedMagic    = errors.New("legacy: messages of different magic in one set")
	ErrEmptyWrapper  = errors.New("legacy: compressed message holds no messages")
	// ErrUnsupportedCodec is zstd (or an unknown codec) in a format before
	// v2; Kafka answers it with UNSUPPORTED_COMPRESSION_TYPE.
	ErrUnsupportedCodec = errors.New("legacy: codec not supported before message format v2")
	ErrPartialMessage   = errors.New("legacy: set ends inside a message")
)

// Message is one decoded message. Key and Value alias the decoded buffer and
// are nil when null.
type Message struct {
	Offset     int64
	Magic      int8
	Attributes int8
	Timestamp  int64 // record.NoTimestamp for magic 0
	Key        []byte
	Value      []byte
}

// Codec is the compression codec of a wrapper, CodecNone for a plain message.
func (m *Message) Codec() record.Codec { return record.Codec(m.Attributes & attrCodecMask) }

// TimestampType is LogAppendTime when a magic 1 message says so.
func (m *Message) TimestampType() record.TimestampType {
	if m.Magic > 0 && m.Attributes&attrLogAppendTime != 0 {
		return record.LogAppendTime
	}
	return record.CreateTime
}

// parseMessage reads the message at the start of b, returning it and the
// bytes it took with its log overhead. A set that ends inside a message
// answers ErrPartialMessage: a fetch response may end so, a produce may not.
func parseMessage(b []byte, m *Message) (int, error) {
	if len(b) < LogOverhead {
		return 0, ErrPartialMessage
	}
	be := binary.BigEndian
	size := int32(be.Uint32(b[8:]))
	if size < headerV0 {
		return 0, ErrCorrupt
	}
	if int64(len(b)-LogOverhead) < int64(size) {
		return 0, ErrPartialMessage
	}
	body := b[LogOverhead : LogOverhead+int(size)]
	if crc32.ChecksumIEEE(body[4:]) != be.Uint32(body) {
		return 0, ErrBadCRC
	}
	m.Offset = int64(be.Uint64(b))
	m.Magic = int8(body[4])
	m.Attributes = int8(body[5])
	p := 6
	switch m.Magic {
	case 0:
		m.Timestamp = record.NoTimestamp
	case 1:
		if len(body) < headerV1 {
			return 0, ErrCorrupt
		}
		m.Timestamp = int64(be.Uint64(body[p:]))
		p += 8
	default:
		return 0, ErrBadMagic
	}
	var err error
	if m.Key, p, err = readBytes(body, p); err != nil {
		return 0, err
	}
	if m.Value, p, err = readBytes(body, p); err != nil {
		return 0, err
	}
	if p != len(body) {
		return 0, ErrCorrupt
	}
	if m.Codec() > record.CodecLZ4 {
		return 0, ErrUnsupportedCodec
	}
	return LogOverhead + int(size), nil
}

func readBytes(b []byte, p int) ([]byte, int, error) {
	if len(b)-p < 4 {
		return nil, 0, ErrCorrupt
	}
	n := int32(binary.BigEndian.Uint32(b[p:]))
	p += 4
	if n < 0 {
		if n != -1 {
			return nil, 0, ErrCorrupt
		}
		return nil, p, nil
	}
	if int64(len(b)-p) < int64(n) {
		return nil, 0, ErrCorrupt
	}
	return b[p : p+int(n) : p+int(n)], p + int(n), nil
}

// appendMessage encodes one message with its log overhead onto dst.
func appendMessage(dst []byte, offset int64, magic, attributes int8, timestamp int64, key, value []byte) []byte {
	size := headerV0 + len(key) + len(value)
	if magic > 0 {
		size += 8
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(offset))
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	dst = append(dst, 0, 0, 0, 0, byte(magic), byte(attributes))
	if magic > 0 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(timestamp))
	}
	dst = appendBytes(dst, key)
	dst = appendBytes(dst, value)
	body := dst[start+LogOverhead:]
	binary.BigEndian.PutUint32(body, crc32.ChecksumIEEE(body[4:]))
	return dst
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.BigEndian.AppendUint32(dst, 0xffffffff)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}
