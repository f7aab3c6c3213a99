package server

import (
	"math/bits"
	"sync"
)

// produceKey is the Produce API key.
const produceKey = 0

// Request buffers are kept in power-of-two size classes, from
// minClassFrame (class minFrameClass) to maxPooledFrame (class
// maxFrameClass); class k serves frames of (2^(k-1), 2^k] bytes.
//
// Below minPooledFrame a frame whose class is empty gets a fresh buffer of
// the class size: at most 64 KiB, which wire's reader would allocate at
// once for a frame that size anyway. A producer sending one small batch
// per request (linger 0, low rates) otherwise allocates every request
// afresh, which was 63% of the bytes a broker allocated in the 10,000
// records/s end-to-end benchmark and kept the GC cycling.
//
// From minPooledFrame up, class buffers are only ever reused, never
// allocated up front: a size prefix is not trusted to be followed by that
// many bytes, and wire's reader grows large frames in bounded steps as
// they arrive. The buffer it ends with has exactly the frame's size, so
// such a buffer joins the class of that size (its capacity may then be
// below the class size; a later, larger frame of the class grows from it,
// and one of the same size, the common case, fits).
const (
	minClassFrame  = 256
	minFrameClass  = 8        // log2(minClassFrame)
	minPooledFrame = 64 << 10 // smallest frame whose class is not allocated up front
	// maxPooledFrame bounds the buffers kept: a producer's requests are
	// typically a few MiB (one batch of up to 1 MiB per partition), and
	// one request far larger should not pin that much memory.
	maxPooledFrame = 16 << 20
	maxFrameClass  = 24 // log2(maxPooledFrame)
)

// frameClasses hold request buffers between produce requests. A
// connection takes one only once a frame's size prefix has arrived and
// gives it back as soon as the request is handled, so an idle connection
// holds none (10,000 idle connections stay cheap) and the GC empties the
// pools when producing stops.
var frameClasses [maxFrameClass - minFrameClass + 1]sync.Pool // of *[]byte

// frameBuffer is the wire.FrameReader's buffer source.
func frameBuffer(size int32) []byte {
	if size < minClassFrame || size > maxPooledFrame {
		return nil
	}
	class := bits.Len32(uint32(size - 1)) // 1<<class holds size
	if b, ok := frameClasses[class-minFrameClass].Get().(*[]byte); ok {
		return *b
	}
	if size < minPooledFrame {
		return make([]byte, 0, 1<<class)
	}
	return nil
}

// recycleFrame returns a handled request's buffer to the pool when that
// is safe.
//
// Only a Produce request's buffer is reused, because only its handler is
// known to be done with the request bytes when it returns: the record
// batches are validated, given offsets in place and written to the segment
// file before handleProduce returns, and its deferred stage (waiting for
// fsync) touches only the response. Other requests may leave slices of
// their frame in state that outlives the request (group member metadata,
// SASL tokens, parked fetches), so their buffers are left to the GC.
//
// Reuse matters because produce requests are large: allocating a fresh
// multi-MiB buffer per request costs a zeroing pass, page faults on fresh
// heap and GC cycles, all on the produce path (pprof: memclrNoHeapPointers
// under mallocgcLarge and memmove in readGrowing were ~15% of broker CPU,
// and 3.9 GB of 3.9 GB allocated; with reuse broker CPU per GB produced
// halved in load runs).
func recycleFrame(apiKey int16, frame []byte) {
	if apiKey != produceKey {
		return
	}
	c := cap(frame)
	if c < minClassFrame || c > maxPooledFrame {
		return
	}
	class := bits.Len(uint(c - 1)) // the smallest class c reaches into
	if c&(c-1) != 0 && c < minPooledFrame {
		// Below minPooledFrame a class's buffers are exactly its size,
		// so a frame that is not would be short for some of it.
		return
	}
	b := frame[:0]
	frameClasses[class-minFrameClass].Put(&b)
}
