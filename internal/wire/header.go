package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// RequestHeader is the common header in front of every request body.
type RequestHeader struct {
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	// ClientID is nil when the client sent a null client id.
	ClientID *string
}

// ErrShortHeader means the frame ends inside the request header.
var ErrShortHeader = errors.New("request header truncated")

// PeekCorrelationID returns the correlation id of a frame, or 0 when the
// frame is too short to hold one; error responses always echo this value.
func PeekCorrelationID(frame []byte) int32 {
	if len(frame) < correlationIDEnd {
		return 0
	}
	return int32(binary.BigEndian.Uint32(frame[4:8]))
}

// PeekAPI returns the api key and version of a frame that holds at least
// the first four header bytes.
func PeekAPI(frame []byte) (key, version int16, ok bool) {
	if len(frame) < 4 {
		return 0, 0, false
	}
	return int16(binary.BigEndian.Uint16(frame[0:2])), int16(binary.BigEndian.Uint16(frame[2:4])), true
}

// ParseRequestHeader decodes a request header. flexible selects header v2,
// which follows the client id with tagged fields; otherwise header v1. The
// returned body aliases frame.
func ParseRequestHeader(frame []byte, flexible bool) (RequestHeader, []byte, error) {
	var h RequestHeader
	if len(frame) < MinRequestHeaderSize {
		return h, nil, ErrShortHeader
	}
	h.APIKey = int16(binary.BigEndian.Uint16(frame[0:2]))
	h.APIVersion = int16(binary.BigEndian.Uint16(frame[2:4]))
	h.CorrelationID = int32(binary.BigEndian.Uint32(frame[4:8]))
	n := int16(binary.BigEndian.Uint16(frame[8:10]))
	rest := frame[10:]
	switch {
	case n == -1:
	case n < -1:
		return h, nil, fmt.Errorf("client id length %d is invalid", n)
	case int(n) > len(rest):
		return h, nil, fmt.Errorf("client id length %d exceeds the %d bytes left: %w", n, len(rest), ErrShortHeader)
	default:
		id := string(rest[:n])
		h.ClientID = &id
		rest = rest[n:]
	}
	if flexible {
		var err error
		if rest, err = SkipTaggedFields(rest); err != nil {
			return h, nil, fmt.Errorf("request header tagged fields: %w", err)
		}
	}
	return h, rest, nil
}

// SkipTaggedFields skips a KIP-482 tagged field section: an unsigned varint
// count, then for each field a tag and a size (unsigned varints) and the
// field's bytes. Tags must be strictly increasing, as Kafka requires.
func SkipTaggedFields(b []byte) ([]byte, error) {
	count, b, err := uvarint(b)
	if err != nil {
		return nil, err
	}
	if count > uint64(len(b)) {
		return nil, fmt.Errorf("%d tagged fields cannot fit in %d bytes", count, len(b))
	}
	lastTag := int64(-1)
	for i := uint64(0); i < count; i++ {
		var tag, size uint64
		if tag, b, err = uvarint(b); err != nil {
			return nil, err
		}
		if int64(tag) <= lastTag || tag > 1<<31-1 {
			return nil, fmt.Errorf("tagged field %d out of order or out of range", tag)
		}
		lastTag = int64(tag)
		if size, b, err = uvarint(b); err != nil {
			return nil, err
		}
		if size > uint64(len(b)) {
			return nil, fmt.Errorf("tagged field %d of %d bytes exceeds the %d left", tag, size, len(b))
		}
		b = b[size:]
	}
	return b, nil
}

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 || v > 1<<32-1 {
		return 0, nil, errors.New("malformed unsigned varint")
	}
	return v, b[n:], nil
}

// AppendResponseHeader appends a response header: v0 is the correlation id
// alone, v1 adds an empty tagged field section.
func AppendResponseHeader(dst []byte, correlationID int32, flexible bool) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlationID))
	if flexible {
		dst = append(dst, 0)
	}
	return dst
}
