package metrics

import (
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// requestSample is what one (request, version) series shows after a scrape.
type requestSample struct {
	count        float64
	observations uint64
	latencySum   float64
}

// requestSamples gathers m's two request families keyed "request/version".
func requestSamples(t *testing.T, m *Metrics) map[string]requestSample {
	t.Helper()
	got := map[string]requestSample{}
	key := func(s *dto.Metric) string {
		labels := map[string]string{}
		for _, l := range s.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if len(labels) != 2 {
			t.Fatalf("labels %v, want exactly request and version", labels)
		}
		return labels["request"] + "/" + labels["version"]
	}
	if f := family(t, m, "kafka_network_requests_total"); f != nil {
		for _, s := range f.GetMetric() {
			k := key(s)
			r := got[k]
			r.count = s.GetCounter().GetValue()
			got[k] = r
		}
	}
	if f := family(t, m, "kafka_network_request_total_time_seconds"); f != nil {
		for _, s := range f.GetMetric() {
			k := key(s)
			r := got[k]
			r.observations = s.GetHistogram().GetSampleCount()
			r.latencySum = s.GetHistogram().GetSampleSum()
			got[k] = r
		}
	}
	return got
}

func TestRequestIsCountedAndTimedByAPIAndVersion(t *testing.T) {
	m := New()
	m.Request(0, 9, 2*time.Millisecond)
	m.Request(0, 9, 4*time.Millisecond)
	m.Request(0, 3, time.Millisecond)
	m.Request(1, 13, time.Millisecond)
	m.Request(requestTableKeys-1, requestTableVersions-1, time.Millisecond)

	got := requestSamples(t, m)
	want := map[string]struct {
		n   uint64
		sum float64
	}{
		"Produce/9":  {2, 0.006},
		"Produce/3":  {1, 0.001},
		"Fetch/13":   {1, 0.001},
		"Unknown/31": {1, 0.001},
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("no %s series", k)
		case g.count != float64(w.n) || g.observations != w.n:
			t.Errorf("%s counted %v and timed %d times, want %d", k, g.count, g.observations, w.n)
		case g.latencySum < w.sum-1e-9 || g.latencySum > w.sum+1e-9:
			t.Errorf("%s latency sum %v, want %v", k, g.latencySum, w.sum)
		}
	}
}

func TestRequestOutsideTheTableSharesOneSeries(t *testing.T) {
	m := New()
	m.Request(1, requestTableVersions, time.Millisecond) // a version beyond the table
	m.Request(1, requestTableVersions, time.Millisecond)
	m.Request(requestTableKeys, 0, time.Millisecond) // a key beyond the table
	m.Request(-1, -2, time.Millisecond)              // negative ones must not index
	for v := int16(1000); v < 2000; v++ {            // a client cycling versions adds no series
		m.Request(7, v, time.Millisecond)
	}

	got := requestSamples(t, m)
	other := outOfTableLabel + "/" + outOfTableLabel
	if g := got[other]; g.count != 1004 || g.observations != 1004 {
		t.Errorf("%s counted %v and timed %d times, want 1004", other, g.count, g.observations)
	}
	if len(got) != 1 {
		t.Errorf("series %v, want only %s", got, other)
	}
}

func TestRequestFromManyGoroutinesLosesNothing(t *testing.T) {
	m := New()
	const workers, each = 4, 500
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				m.Request(3, int16(i%2), time.Microsecond) // both slots filled concurrently
			}
		}()
	}
	wg.Wait()
	got := requestSamples(t, m)
	for _, k := range []string{"Metadata/0", "Metadata/1"} {
		if g := got[k]; g.count != workers*each/2 || g.observations != workers*each/2 {
			t.Errorf("%s counted %v and timed %d times, want %d", k, g.count, g.observations, workers*each/2)
		}
	}
}
