package server

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
)

// refusedHeapBound is how far the heap may grow while a frame is refused:
// its own bytes and slack, far below what decoding it would allocate
// (hundreds of MiB for the frames below).
const refusedHeapBound = 64 << 20

// refusedBeforeDecoding sends frame on one connection and checks that the
// server closes it having allocated little, that a request on another
// connection is answered meanwhile, and that the frame was counted as
// refused; the process's resident memory and a bystander's Metadata
// latency are logged (hostileWatch).
func refusedBeforeDecoding(t *testing.T, s *Server, addr string, frame []byte) {
	t.Helper()
	watch := watchHostile(t, os.Getpid(), addr)
	defer watch.finish(fmt.Sprintf("a refused frame of %d bytes", len(frame)))
	attacker, other := dialTest(t, addr), dialTest(t, addr)
	roundTrip(t, other, apiVersions(1), 1)
	refusedBefore := s.stats.FramesRefused.Load()
	runtime.GC()
	baseline := heapObjects()
	stop := make(chan struct{})
	peak := heapPeak(stop)
	if _, err := attacker.Write(frame); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, other, apiVersions(2), 2)
	if got, err := readResponse(attacker); err != io.EOF {
		t.Fatalf("answer %d, %v; want the connection closed", got, err)
	}
	close(stop)
	if grown := int64(<-peak) - int64(baseline); grown > refusedHeapBound {
		t.Fatalf("heap grew %d MiB refusing a %d MiB frame, bound %d MiB", grown>>20, len(frame)>>20, refusedHeapBound>>20)
	}
	if n := s.stats.FramesRefused.Load() - refusedBefore; n != 1 {
		t.Fatalf("%d frames counted as refused, want 1", n)
	}
	roundTrip(t, other, apiVersions(3), 3)
}

// TestFrameCostlierThanTheBudgetIsRefusedBeforeDecoding: a whole, valid
// Metadata v9 body of 4 MiB of empty names with unknown tags would
// allocate ~384 MiB decoded, more than the 256 MiB large budget. It used
// to decode alone, holding all of the budget and exceeding it; it is now
// refused before decoding and its connection closed.
func TestFrameCostlierThanTheBudgetIsRefusedBeforeDecoding(t *testing.T) {
	s, addr := startTestServer(t, Config{MaxRequestSize: 8 << 20})
	refusedBeforeDecoding(t, s, addr, emptyTaggedTopics(4<<20, 7))
}

// TestAmplifyingProduceIsRefusedBeforeDecoding: Produce is counted, not
// charged per byte, and a body of tiny tagged topics counts as costly as
// it is.
func TestAmplifyingProduceIsRefusedBeforeDecoding(t *testing.T) {
	s, addr := startTestServer(t, Config{MaxRequestSize: 8 << 20})
	req := produceRequest(9)
	for range (4 << 20) / 5 {
		topic := produceTopic("", 0)
		topic.UnknownTags.Set(unknownTagKey, nil)
		req.Topics = append(req.Topics, topic)
	}
	refusedBeforeDecoding(t, s, addr, encodeRequest(req, 7))
}
