package wire

import (
	"errors"
	"fmt"
	"io"
)

// MinRequestHeaderSize is the smallest request header: api key (2), api
// version (2), correlation id (4) and the client id length (2).
const MinRequestHeaderSize = 10

// correlationIDEnd is the offset just past the correlation id in a request.
const correlationIDEnd = 8

// DefaultMaxFrameSize mirrors Kafka's socket.request.max.bytes default.
const DefaultMaxFrameSize = 100 * 1024 * 1024

// growChunk is how much frame buffer is added per read while a large frame
// arrives; memory tracks received bytes instead of the announced size.
const growChunk = 64 * 1024

// ErrFrameTooLarge is returned when a size prefix exceeds the configured
// maximum (or is negative, which on the wire means above 2 GiB).
var ErrFrameTooLarge = errors.New("frame size exceeds socket.request.max.bytes")

// FrameSizeError describes a size prefix that can never hold a valid request.
type FrameSizeError struct {
	Size int32
	Max  int32
}

func (e *FrameSizeError) Error() string {
	if e.Size < 0 || e.Size > e.Max {
		return fmt.Sprintf("frame size %d outside [0, %d] (socket.request.max.bytes)", e.Size, e.Max)
	}
	return fmt.Sprintf("frame size %d below the minimum request header size %d", e.Size, MinRequestHeaderSize)
}

func (e *FrameSizeError) Unwrap() error {
	if e.Size < 0 || e.Size > e.Max {
		return ErrFrameTooLarge
	}
	return nil
}

// FrameReader reads size-prefixed frames from a stream. It is not safe for
// concurrent use; one goroutine per connection owns it.
type FrameReader struct {
	r      io.Reader
	max    int32
	prefix [4]byte
}

// NewFrameReader returns a reader that refuses frames larger than max bytes.
func NewFrameReader(r io.Reader, max int32) *FrameReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &FrameReader{r: r, max: max}
}

// SetMaxSize changes the largest frame accepted from the next read on; a
// connection that is still authenticating reads under a smaller bound
// (sasl.server.max.receive.size) than an authenticated one.
func (fr *FrameReader) SetMaxSize(max int32) {
	if max > 0 {
		fr.max = max
	}
}

// ReadFrame reads one frame and returns its payload (without the prefix).
// A short frame (fewer bytes than a request header) is still read whole and
// returned together with a *FrameSizeError so the caller can answer it
// before closing; an oversized frame returns ErrFrameTooLarge having read
// only the prefix. buf is reused when it is large enough.
func (fr *FrameReader) ReadFrame(buf []byte) ([]byte, error) {
	return fr.ReadFrameFrom(func(int32) []byte { return buf })
}

// ReadFrameFrom is ReadFrame with the buffer chosen once the frame's size
// is known and accepted: get(size) returns a buffer whose capacity is used
// if it is large enough (nil for a fresh one). It is not called for a
// refused size, and a smaller buffer is grown in bounded steps as bytes
// arrive, so get need not trust size.
func (fr *FrameReader) ReadFrameFrom(get func(size int32) []byte) ([]byte, error) {
	if _, err := io.ReadFull(fr.r, fr.prefix[:]); err != nil {
		return nil, err
	}
	size := int32(uint32(fr.prefix[0])<<24 | uint32(fr.prefix[1])<<16 | uint32(fr.prefix[2])<<8 | uint32(fr.prefix[3]))
	if size < 0 || size > fr.max {
		return nil, &FrameSizeError{Size: size, Max: fr.max}
	}
	frame, err := readGrowing(fr.r, int(size), get(size)[:0])
	if err != nil {
		return nil, err
	}
	if size < MinRequestHeaderSize {
		return frame, &FrameSizeError{Size: size, Max: fr.max}
	}
	return frame, nil
}

// readGrowing reads exactly n bytes, growing buf in bounded steps.
func readGrowing(r io.Reader, n int, buf []byte) ([]byte, error) {
	if cap(buf) >= n {
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, unexpectedEOF(err)
	}
	for len(buf) < n {
		next := min(n, max(len(buf)*2, len(buf)+growChunk))
		if cap(buf) < next {
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		start := len(buf)
		buf = buf[:next]
		if _, err := io.ReadFull(r, buf[start:]); err != nil {
			return nil, unexpectedEOF(err)
		}
	}
	return buf, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// AppendSizePrefix reserves a 4-byte size prefix at the end of dst; call
// FinishFrame with the returned offset once the frame is written.
func AppendSizePrefix(dst []byte) ([]byte, int) {
	return append(dst, 0, 0, 0, 0), len(dst)
}

// FinishFrame writes the size of everything after the prefix at at.
func FinishFrame(frame []byte, at int) {
	n := uint32(len(frame) - at - 4)
	frame[at], frame[at+1], frame[at+2], frame[at+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
}
