package server

import (
	"math/bits"
	"sync"
)

// produceKey is the Produce API key.
const produceKey = 0

// Small frames are served from power-of-two size classes, from
// minClassFrame up to (not including) minPooledFrame: a producer sending
// one small batch per request (linger 0, low rates) otherwise allocates
// every request afresh, which was 63% of the bytes a broker allocated in
// the 10,000 records/s end-to-end benchmark and kept the GC cycling.
const (
	minClassFrame = 256
	minFrameClass = 8  // log2(minClassFrame)
	maxFrameClass = 16 // log2(minPooledFrame)
)

// minPooledFrame is the smallest request read into a buffer from the large
// pool, whose buffers are only ever reused, never allocated up front: a
// size prefix is not trusted to be followed by that many bytes, and
// wire's reader grows large frames in bounded steps as they arrive.
const minPooledFrame = 64 << 10

// maxPooledFrame bounds the buffers kept: a producer's requests are
// typically a few MiB (one batch of up to 1 MiB per partition), and one
// request far larger should not pin that much memory.
const maxPooledFrame = 16 << 20

// frameBuffers holds large request buffers between produce requests, and
// smallFrames the size classes. A connection takes one only once a
// frame's size prefix has arrived and gives it back as soon as the
// request is handled, so an idle connection holds none (10,000 idle
// connections stay cheap) and the GC empties the pools when producing
// stops.
var (
	frameBuffers sync.Pool                                    // of *[]byte
	smallFrames  [maxFrameClass - minFrameClass + 1]sync.Pool // of *[]byte, each cap exactly its class
)

// frameBuffer is the wire.FrameReader's buffer source.
func frameBuffer(size int32) []byte {
	switch {
	case size < minClassFrame:
		return nil
	case size < minPooledFrame:
		class := bits.Len32(uint32(size - 1)) // cap 1<<class holds size
		if b, ok := smallFrames[class-minFrameClass].Get().(*[]byte); ok {
			return *b
		}
		// At most 64 KiB, which wire's reader would allocate at once
		// for a frame this size anyway.
		return make([]byte, 0, 1<<class)
	}
	if b, ok := frameBuffers.Get().(*[]byte); ok {
		return *b
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
	b := frame[:0]
	switch {
	case c < minClassFrame || c > maxPooledFrame:
	case c <= 1<<maxFrameClass && c&(c-1) == 0:
		// A power of two: a class buffer frameBuffer made.
		smallFrames[bits.Len(uint(c))-1-minFrameClass].Put(&b)
	case c >= minPooledFrame:
		frameBuffers.Put(&b)
	}
}
