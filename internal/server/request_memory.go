package server

import "math"

// queued.max.request.bytes works as in Kafka (KIP-72): a memory pool shared
// by every connection, from which each request frame's bytes are taken
// once its size prefix has arrived and before its body is read, and to
// which they return once the request is handled. When nothing is left the
// connection waiting for memory stops reading its socket (TCP pushes back
// on the client) until some returns; no request is ever refused or
// dropped for it. As Kafka's pool is non-strict, a frame is granted while
// any memory is free, so the pool may be overdrawn by up to one frame.
//
// Kafka's socket server reads one request per connection at a time and
// keeps the connection muted until that request's response is sent.
// Karst lets a connection pipeline up to Config.MaxInFlight requests, so
// a frame takes its connection's in-flight slot before taking memory:
// memory is then only held by a request that will be handled without
// waiting for its client to read responses, and a client that stops
// reading cannot pin the pool.

// newRequestMemory returns the pool for limit bytes; nil (no limit) for
// limit <= 0, Kafka's default being -1.
func newRequestMemory(limit int64) *byteBudget {
	if limit <= 0 {
		return nil
	}
	return newLenientBudget(limit)
}

// RequestMemoryAvailable is queued.max.request.bytes less the bytes of
// requests read, or being read, and not yet handled (Kafka's
// SocketServer MemoryPoolAvailable). It is negative while the pool is
// overdrawn, and math.MaxInt64 without a limit, as Kafka reports then.
func (s *Server) RequestMemoryAvailable() int64 {
	if s.requestMemory == nil {
		return math.MaxInt64
	}
	return s.requestMemory.available()
}

// RequestMemoryUsed is the bytes of requests read, or being read, and not
// yet handled, counted only when queued.max.request.bytes is set (Kafka's
// MemoryPoolUsed).
func (s *Server) RequestMemoryUsed() int64 {
	if s.requestMemory == nil {
		return 0
	}
	return s.requestMemory.used.Load()
}

// frameBufferFor is the frame reader's buffer source, called once a
// frame's size prefix has been read and accepted, before its body. It
// takes the connection's in-flight slot and then the frame's bytes from
// request memory; while either waits, this socket is not read.
func (c *conn) frameBufferFor(size int32) []byte {
	c.take()
	c.slotTaken = true
	c.receiving.Store(true)
	n, ok := c.s.requestMemory.acquire(int64(size), c.s.ctx.Done())
	if !ok {
		// Shutting down: make the body read fail at once.
		c.stopReading()
		return nil
	}
	c.heldMemory = n
	return frameBuffer(size)
}

// releaseRequestMemory returns the current frame's bytes to the pool.
func (c *conn) releaseRequestMemory() {
	c.s.requestMemory.release(c.heldMemory)
	c.heldMemory = 0
}
