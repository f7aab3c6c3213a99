package server_test

import (
	"encoding/binary"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
)

// TestRandomAndMutatedFramesOverSockets throws thousands of random and
// mutated frames at a broker over real sockets, then checks that a normal
// client is still served, that nothing panicked and that memory stayed
// bounded.
func TestRandomAndMutatedFramesOverSockets(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithMaxRequestSize(1<<20))
	runtime.GC()
	before := rssBytes(t)

	valid := [][]byte{
		request(kmsg.NewPtrApiVersionsRequest(), 3, 1, "storm"),
		request(kmsg.NewPtrApiVersionsRequest(), 0, 2, "storm"),
		request(kmsg.NewPtrMetadataRequest(), 12, 3, "storm"),
		request(kmsg.NewPtrMetadataRequest(), 1, 4, "storm"),
	}
	const workers, framesPerWorker = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 2026))
			var c net.Conn
			for i := range framesPerWorker {
				if c == nil {
					var err error
					if c, err = net.DialTimeout("tcp", b.Addr(), 5*time.Second); err != nil {
						t.Error(err)
						return
					}
					c.SetDeadline(time.Now().Add(30 * time.Second))
					go drain(c)
				}
				frame := mutate(rng, valid[i%len(valid)])
				if _, err := c.Write(frame); err != nil {
					c.Close()
					c = nil
				}
			}
			if c != nil {
				c.Close()
			}
		}()
	}
	wg.Wait()

	apiVersionsOK(t, server.DialTest(t, b.Addr()), 99)
	if n := b.PanicsRecovered(); n != 0 {
		t.Fatalf("%d handler panics", n)
	}
	runtime.GC()
	if grown := rssBytes(t) - before; grown > 64<<20 {
		t.Fatalf("RSS grew by %d bytes", grown)
	}
}

// drain reads and discards responses until the connection closes.
func drain(c net.Conn) {
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// mutate returns a damaged copy of a valid frame: flipped bytes, a
// truncated or extended body, a random size prefix, or pure noise.
func mutate(rng *rand.Rand, valid []byte) []byte {
	f := append([]byte(nil), valid...)
	switch rng.IntN(6) {
	case 0:
		for range 1 + rng.IntN(4) {
			i := 4 + rng.IntN(len(f)-4)
			f[i] ^= byte(1 + rng.IntN(255))
		}
	case 1:
		f = f[:4+rng.IntN(len(f)-4)]
		binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	case 2:
		extra := make([]byte, rng.IntN(64))
		for i := range extra {
			extra[i] = byte(rng.IntN(256))
		}
		f = append(f, extra...)
		binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	case 3:
		binary.BigEndian.PutUint32(f, rng.Uint32())
	case 4:
		n := 10 + rng.IntN(200)
		f = make([]byte, 4+n)
		for i := range f {
			f[i] = byte(rng.IntN(256))
		}
		binary.BigEndian.PutUint32(f, uint32(n))
	default:
		// A valid api key with a random version.
		binary.BigEndian.PutUint16(f[6:], uint16(rng.IntN(40)))
	}
	return f
}
