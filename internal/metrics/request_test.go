package metrics

import (
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// requestSample is what one request's series show after a scrape: the
// count of one (request, version) and the timing of the request.
type requestSample struct {
	count        float64
	observations uint64
	latencySum   float64 // milliseconds
}

func labelsOf(s *dto.Metric) map[string]string {
	labels := map[string]string{}
	for _, l := range s.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	return labels
}

// requestSamples gathers m's two request families keyed "request/version",
// the timing of each request shown beside each of its versions.
func requestSamples(t *testing.T, m *Metrics) map[string]requestSample {
	t.Helper()
	got := map[string]requestSample{}
	if f := family(t, m, "kafka_network_requestmetrics_requests_total"); f != nil {
		for _, s := range f.GetMetric() {
			labels := labelsOf(s)
			if len(labels) != 2 {
				t.Fatalf("labels %v, want exactly request and version", labels)
			}
			k := labels["request"] + "/" + labels["version"]
			r := got[k]
			r.count = s.GetCounter().GetValue()
			got[k] = r
		}
	}
	if f := family(t, m, "kafka_network_requestmetrics_totaltimems"); f != nil {
		for _, s := range f.GetMetric() {
			labels := labelsOf(s)
			if len(labels) != 1 {
				t.Fatalf("labels %v, want exactly request", labels)
			}
			if q := len(s.GetSummary().GetQuantile()); q != len(kafkaQuantiles) {
				t.Errorf("%s has %d quantiles, want %d", labels["request"], q, len(kafkaQuantiles))
			}
			for k, r := range got {
				if strings.HasPrefix(k, labels["request"]+"/") {
					r.observations += s.GetSummary().GetSampleCount()
					r.latencySum += s.GetSummary().GetSampleSum()
					got[k] = r
				}
			}
		}
	}
	return got
}

func TestRequestIsCountedAndTimedByAPIAndVersion(t *testing.T) {
	m := New()
	m.Request(0, 9, 2*time.Millisecond)
	m.Request(0, 9, 4*time.Millisecond)
	m.Request(0, 3, time.Millisecond)
	m.Request(3, 12, time.Millisecond)
	m.Request(1, 13, time.Millisecond)
	m.Request(requestTableKeys-1, requestTableVersions-1, time.Millisecond)

	got := requestSamples(t, m)
	want := map[string]struct {
		n   uint64
		sum float64
	}{
		// TotalTimeMs is by request only, as Kafka's: both Produce
		// versions show the request's three observations.
		"Produce/9":   {2, 7},
		"Produce/3":   {1, 7},
		"Metadata/12": {1, 1},
		"Fetch/13":    {1, 1},
		"Unknown/31":  {1, 1},
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("no %s series", k)
		case g.count != float64(w.n):
			t.Errorf("%s counted %v, want %d", k, g.count, w.n)
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
		if g := got[k]; g.count != workers*each/2 || g.observations != workers*each {
			t.Errorf("%s counted %v and Metadata timed %d times, want %d and %d", k, g.count, g.observations, workers*each/2, workers*each)
		}
	}
}
