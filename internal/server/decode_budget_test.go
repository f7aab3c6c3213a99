package server

import (
	"encoding/binary"
	"net"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// amplifyingMetadata is a Metadata v9 request of about bodyBytes whose
// topics are each 4 bytes on the wire (an empty name and one unknown tag)
// and about 384 bytes once decoded, the most of any request (see
// TestDecodeCostFactorsCoverWorstCases). Its last 3 bytes are cut, so the
// decode allocates everything and then fails: the server answers
// INVALID_REQUEST and no handler runs.
func amplifyingMetadata(bodyBytes int, correlationID int32) []byte {
	frame := emptyTaggedTopics(bodyBytes, correlationID)
	frame = frame[:len(frame)-3]
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	return frame
}

// emptyTaggedTopics is amplifyingMetadata whole: a body that decodes.
func emptyTaggedTopics(bodyBytes int, correlationID int32) []byte {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(9)
	topic := kmsg.NewMetadataRequestTopic()
	topic.Topic = new(string)
	topic.UnknownTags.Set(unknownTagKey, nil)
	req.Topics = make([]kmsg.MetadataRequestTopic, bodyBytes/4)
	for i := range req.Topics {
		req.Topics[i] = topic
	}
	return encodeRequest(req, correlationID)
}

// heapPeak samples the bytes of heap objects (live and not yet swept)
// until stop is closed, and returns the most seen.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// Decode amplification test sizes: attackers connections each send one
// frame of frameBody bytes, which decodes into about 96 times that. With
// the decode budget below, one decodes at a time.
const (
	attackers     = 6
	frameBody     = 1 << 20
	testBudget    = 160 << 20 // decodeCost(frameBody) is 128 MiB: one fits
	heapGrowBound = 240 << 20 // one decode's 96 MiB, its predecessor's garbage, frames, slack
)

// TestConcurrentAmplifyingFramesDecodeWithinTheBudget has several
// connections send frames built to make decoding allocate ~96 times their
// size, all at once, and checks that the heap stays within a bound that
// the same frames decoded together exceed, and that a small request on
// another connection is answered while they queue. Peaks seen above the
// baseline: 107-124 MiB with the budget, 471-564 MiB with DecodeBudget -1.
func TestConcurrentAmplifyingFramesDecodeWithinTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	s, addr := startTestServer(t, Config{MaxRequestSize: 4 << 20, DecodeBudget: testBudget})
	defer debug.SetGCPercent(debug.SetGCPercent(20)) // let the heap follow what is live

	frames := make([][]byte, attackers)
	conns := make([]net.Conn, attackers)
	for i := range frames {
		frames[i] = amplifyingMetadata(frameBody, int32(i))
		conns[i] = dialTest(t, addr)
	}
	small := dialTest(t, addr)
	roundTrip(t, small, apiVersions(1000), 1000)

	runtime.GC()
	baseline := heapObjects()
	stop := make(chan struct{})
	peak := heapPeak(stop)

	var answered sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, c := range conns {
		answered.Add(1)
		go func() {
			defer answered.Done()
			if _, err := c.Write(frames[i]); err != nil {
				t.Error(err)
				return
			}
			if got, err := readResponse(c); err != nil || got != int32(i) {
				t.Errorf("attacker %d: answer %d, %v; want its INVALID_REQUEST answer", i, got, err)
			}
			mu.Lock()
			done++
			mu.Unlock()
		}()
	}
	// Once a large decode is queued behind another, a small request must
	// still be answered at once.
	deadline := time.Now().Add(30 * time.Second)
	for s.decodes.large.waiting.Load() == 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if s.decodes.large.waiting.Load() == 0 {
		t.Fatal("no large decode ever waited for the budget")
	}
	roundTrip(t, small, apiVersions(1001), 1001)
	mu.Lock()
	finished := done
	mu.Unlock()
	if finished == attackers {
		t.Fatalf("the small request was answered only after every large one")
	}
	answered.Wait()
	close(stop)
	grown := <-peak - baseline
	t.Logf("heap peak %d MiB above baseline with %d frames of %d KiB (%d answered before the small request)",
		grown>>20, attackers, frameBody>>10, finished)
	if grown > heapGrowBound {
		t.Fatalf("heap grew %d MiB, bound %d MiB", grown>>20, heapGrowBound>>20)
	}
}

func heapObjects() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
