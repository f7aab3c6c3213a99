package server

import "testing"

func TestOnlyProduceFramesArePooled(t *testing.T) {
	// Drain whatever other tests left behind.
	for frameBuffers.Get() != nil {
	}
	big := make([]byte, minPooledFrame)
	recycleFrame(3, big) // Metadata: its frame may be referenced after the handler returns
	if got := frameBuffer(minPooledFrame); got != nil {
		t.Fatalf("a Metadata request's buffer was pooled")
	}
	recycleFrame(produceKey, make([]byte, maxPooledFrame+1))
	if got := frameBuffer(minPooledFrame); got != nil {
		t.Fatalf("an oversized buffer was pooled")
	}
	recycleFrame(produceKey, big)
	if got := frameBuffer(minPooledFrame - 1); got != nil {
		t.Fatalf("a small frame took a pooled buffer")
	}
	// sync.Pool may drop entries at any GC, so only check what comes back.
	if got := frameBuffer(minPooledFrame); got != nil && (len(got) != 0 || &got[:1][0] != &big[0]) {
		t.Fatalf("pool returned a buffer that is not the produce frame's")
	}
}
