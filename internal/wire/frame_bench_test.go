package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"testing"
)

// repeatReader replays one frame forever without allocating.
type repeatReader struct {
	data []byte
	pos  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.pos == len(r.data) {
		r.pos = 0
	}
	n := copy(p, r.data[r.pos:])
	r.pos += n
	return n, nil
}

func sizedFrame(n int) []byte {
	f := make([]byte, 4+n)
	binary.BigEndian.PutUint32(f, uint32(n))
	return f
}

// BenchmarkReadFrame reads produce-sized frames into a fresh buffer each
// time (what every request did) and into the previous frame's buffer
// (what a connection now does between produce requests).
func BenchmarkReadFrame(b *testing.B) {
	for _, size := range []int{16 << 10, 1 << 20, 6 << 20} {
		for _, mode := range []string{"fresh", "reused"} {
			b.Run(fmt.Sprintf("%s/%dKiB", mode, size>>10), func(b *testing.B) {
				fr := NewFrameReader(&repeatReader{data: sizedFrame(size)}, 0)
				var buf []byte
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					frame, err := fr.ReadFrame(buf)
					if err != nil {
						b.Fatal(err)
					}
					if mode == "reused" {
						buf = frame[:0]
					}
				}
			})
		}
	}
}

func TestReadFrameReusesLargeEnoughBuffer(t *testing.T) {
	frame := sizedFrame(100)
	frame[4] = 7
	fr := NewFrameReader(io.MultiReader(bytes.NewReader(frame), bytes.NewReader(frame)), 0)
	first, err := fr.ReadFrame(nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := fr.ReadFrame(first[:0])
	if err != nil {
		t.Fatal(err)
	}
	if &second[0] != &first[0] || second[0] != 7 || len(second) != 100 {
		t.Fatalf("second frame not read into the first one's buffer")
	}
}
