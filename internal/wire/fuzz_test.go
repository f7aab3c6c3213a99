package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"
)

// seed002 is the exact ApiVersions request of the protocol exercise.
const seed002 = "000000230012674a4f74d28b00096b61666b612d636c69000a6b61666b612d636c6904302e3100"

func FuzzReadFrame(f *testing.F) {
	raw, _ := hex.DecodeString(seed002)
	f.Add(raw, int32(1024))
	f.Add([]byte{0x80, 0, 0, 0}, int32(1024))
	f.Add([]byte{0, 0, 0, 3, 1, 2, 3}, int32(100))
	f.Add(append(append([]byte{}, raw...), raw...), int32(40))
	f.Fuzz(func(t *testing.T, stream []byte, max int32) {
		if max <= 0 || max > 1<<20 {
			max = 1 << 20
		}
		fr := NewFrameReader(bytes.NewReader(stream), max)
		for range 1000 {
			frame, err := fr.ReadFrame(nil)
			var sizeErr *FrameSizeError
			switch {
			case err == nil:
				if len(frame) < MinRequestHeaderSize || len(frame) > int(max) {
					t.Fatalf("frame of %d bytes accepted with max %d", len(frame), max)
				}
				continue
			case errors.As(err, &sizeErr):
				if len(frame) >= MinRequestHeaderSize {
					t.Fatalf("short-frame error with a %d-byte frame", len(frame))
				}
				return
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
				return
			default:
				t.Fatalf("unexpected error %v", err)
			}
		}
	})
}

func FuzzParseRequestHeader(f *testing.F) {
	raw, _ := hex.DecodeString(seed002)
	f.Add(raw[4:], true)
	f.Add(raw[4:], false)
	f.Add([]byte{0, 3, 0, 12, 0, 0, 0, 1, 0xff, 0xff, 0}, true)
	f.Add([]byte{0, 3, 0, 12, 0, 0, 0, 1, 0, 1, 'x', 2, 0, 1, 7, 5, 1, 9}, true)
	f.Fuzz(func(t *testing.T, frame []byte, flexible bool) {
		h, body, err := ParseRequestHeader(frame, flexible)
		if err != nil {
			return
		}
		if len(body) > len(frame)-MinRequestHeaderSize {
			t.Fatalf("body of %d bytes from a %d-byte frame", len(body), len(frame))
		}
		if h.ClientID != nil && len(*h.ClientID) > len(frame) {
			t.Fatal("client id longer than the frame")
		}
	})
}
