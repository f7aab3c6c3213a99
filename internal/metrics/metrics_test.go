package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// family gathers m and returns the named family, or nil.
func family(t *testing.T, m *Metrics, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// byFirstLabel gathers the named family of m and maps each series' first
// label value to its value.
func byFirstLabel[V interface{ GetValue() float64 }](t *testing.T, m *Metrics, name string, value func(*dto.Metric) V) map[string]float64 {
	t.Helper()
	f := family(t, m, name)
	if f == nil {
		t.Fatalf("no %s", name)
	}
	got := map[string]float64{}
	for _, s := range f.GetMetric() {
		got[s.GetLabel()[0].GetValue()] = value(s).GetValue()
	}
	return got
}

func TestPurgatorySizesFollowEnterAndLeave(t *testing.T) {
	m := New()
	m.EnterPurgatory(FetchPurgatory)
	m.EnterPurgatory(FetchPurgatory)
	m.EnterPurgatory(ProducePurgatory)
	m.LeavePurgatory(FetchPurgatory)
	m.EnterPurgatory(Purgatory(99)) // ignored
	got := byFirstLabel(t, m, "kafka_server_delayedoperationpurgatory_purgatorysize", (*dto.Metric).GetGauge)
	if got["Fetch"] != 1 || got["Produce"] != 1 || len(got) != 2 {
		t.Errorf("purgatory sizes %v, want Fetch 1, Produce 1", got)
	}
}

func TestLogFlushHistogramObservesSeconds(t *testing.T) {
	m := New()
	if f := family(t, m, "kafka_log_flush_time_seconds"); f == nil || f.GetMetric()[0].GetHistogram().GetSampleCount() != 0 {
		t.Fatal("the flush histogram is not exported empty before any flush")
	}
	m.LogFlushed(3 * time.Millisecond)
	m.LogFlushed(time.Millisecond)
	h := family(t, m, "kafka_log_flush_time_seconds").GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 0.0039 || h.GetSampleSum() > 0.0041 {
		t.Errorf("count %d sum %v, want 2 and 0.004", h.GetSampleCount(), h.GetSampleSum())
	}
}

func TestNilMetricsRecordsNothing(t *testing.T) {
	var m *Metrics
	m.Request(0, 9, time.Millisecond)
	m.Request(1000, 99, time.Millisecond)
	m.ConnectionOpened("PLAINTEXT")
	m.ConnectionClosed()
	m.Appended("t", 1, 1)
	m.AppendFailed("t")
	m.Fetched("t", 1)
	m.EnterPurgatory(FetchPurgatory)
	m.LeavePurgatory(FetchPurgatory)
	m.LogFlushed(time.Millisecond)
}

func TestRegistryIsConsistent(t *testing.T) {
	m := New()
	m.Request(1, 17, time.Millisecond)
	m.Request(1, 40, time.Millisecond)
	gatherers := prometheus.Gatherers{m.Registry}
	if _, err := gatherers.Gather(); err != nil {
		t.Fatal(err)
	}
}
