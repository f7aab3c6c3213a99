package console

import (
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/metrics"
)

func TestSamplerRatesAndLatencyBetweenSamples(t *testing.T) {
	m := metrics.New()
	s := newSampler(m, time.Second, 3*time.Second)
	now := time.Unix(1000, 0)
	s.nowFor = func() time.Time { return now }
	s.take()
	m.Appended("a", 400, 10)
	m.Request(0, 9, 4*time.Millisecond)
	m.Request(0, 9, 2*time.Millisecond)
	now = now.Add(2 * time.Second)
	s.take()

	got := s.throughput()
	if len(got[0].Points) != 1 || got[0].Last() != 5 || got[1].Last() != 200 {
		t.Errorf("messages %v, bytes %v; want 5 msg/s and 200 B/s", got[0].Points, got[1].Points)
	}
	if got[3].Last() != 1 {
		t.Errorf("requests %v, want 1 req/s", got[3].Points)
	}
	lat := s.latency()
	if len(lat) != 1 || lat[0].Name != "Produce" || lat[0].Last() < 2.99 || lat[0].Last() > 3.01 {
		t.Errorf("latency %+v, want Produce at 3 ms", lat)
	}

	for range 10 { // the window keeps 4 samples
		now = now.Add(time.Second)
		s.take()
	}
	if n := len(s.ring); n != 4 {
		t.Errorf("%d samples kept, want 4", n)
	}
	if n := len(s.throughput()[0].Points); n != 3 {
		t.Errorf("%d points, want 3", n)
	}
}
