package server

import (
	"testing"
)

func TestOnlyProduceFramesArePooled(t *testing.T) {
	// Drain whatever other tests left behind.
	for i := range frameClasses {
		for frameClasses[i].Get() != nil {
		}
	}
	big := make([]byte, 2*minPooledFrame)
	recycleFrame(3, big) // Metadata: its frame may be referenced after the handler returns
	if got := frameBuffer(2 * minPooledFrame); got != nil {
		t.Fatalf("a Metadata request's buffer was pooled")
	}
	recycleFrame(produceKey, make([]byte, maxPooledFrame+1))
	if got := frameBuffer(maxPooledFrame); got != nil {
		t.Fatalf("an oversized buffer was pooled")
	}
	recycleFrame(produceKey, big)
	// sync.Pool may drop entries at any GC, so only check what comes back.
	if got := frameBuffer(2 * minPooledFrame); got != nil && (len(got) != 0 || &got[:1][0] != &big[0]) {
		t.Fatalf("pool returned a buffer that is not the produce frame's")
	}
}

func TestSmallFramesComeFromSizeClasses(t *testing.T) {
	if got := frameBuffer(minClassFrame - 1); got != nil {
		t.Fatalf("a tiny frame got a buffer of cap %d; want a fresh exact one", cap(got))
	}
	for _, tc := range []struct{ size, class int32 }{
		{minClassFrame, minClassFrame}, {minClassFrame + 1, 512}, {1100, 2048}, {4096, 4096}, {minPooledFrame - 1, minPooledFrame},
	} {
		got := frameBuffer(tc.size)
		if len(got) != 0 || cap(got) != int(tc.class) {
			t.Fatalf("frameBuffer(%d): len %d cap %d, want len 0 cap %d", tc.size, len(got), cap(got), tc.class)
		}
		recycleFrame(produceKey, got[:tc.size])
		again := frameBuffer(tc.size)
		if cap(again) != int(tc.class) {
			t.Fatalf("frameBuffer(%d) after recycling: cap %d, want %d", tc.size, cap(again), tc.class)
		}
	}
	// A buffer that is not a class size (wire grew it itself) is not put
	// in a class it would not fill.
	odd := make([]byte, 3000)
	recycleFrame(produceKey, odd)
	for range 4 {
		if got := frameBuffer(2048); cap(got) != 2048 {
			t.Fatalf("class 2048 handed out a buffer of cap %d", cap(got))
		}
	}
}

func BenchmarkSmallProduceFrame(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		buf := frameBuffer(1100)[:1100]
		recycleFrame(produceKey, buf)
	}
}

// growOrReuse stands in for wire's reader: it reads into buf when buf
// holds size bytes and otherwise ends with a buffer of exactly size.
func growOrReuse(buf []byte, size int) []byte {
	if cap(buf) >= size {
		return buf[:size]
	}
	return make([]byte, size)
}

func benchmarkLargeProduceFrames(b *testing.B, sizes []int) {
	b.ReportAllocs()
	for i := range b.N {
		size := sizes[i%len(sizes)]
		recycleFrame(produceKey, growOrReuse(frameBuffer(int32(size)), size))
	}
}

func BenchmarkLargeProduceFrameSameSize(b *testing.B) {
	benchmarkLargeProduceFrames(b, []int{1536 << 10})
}

func BenchmarkLargeProduceFrameMixed(b *testing.B) {
	benchmarkLargeProduceFrames(b, []int{100 << 10, 1536 << 10, 700 << 10, 3 << 20, 1 << 20, 200 << 10})
}
