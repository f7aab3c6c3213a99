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

func TestLogFlushTimerObservesMilliseconds(t *testing.T) {
	const name = "kafka_log_logflushstats_logflushrateandtimems"
	m := New()
	if f := family(t, m, name); f == nil || f.GetMetric()[0].GetSummary().GetSampleCount() != 0 {
		t.Fatal("the flush timer is not exported empty before any flush")
	}
	m.LogFlushed(3 * time.Millisecond)
	m.LogFlushed(time.Millisecond)
	s := family(t, m, name).GetMetric()[0].GetSummary()
	if s.GetSampleCount() != 2 || s.GetSampleSum() < 3.9 || s.GetSampleSum() > 4.1 {
		t.Errorf("count %d sum %v, want 2 and 4 ms", s.GetSampleCount(), s.GetSampleSum())
	}
}

func TestBrokerTopicMetricsHaveAnAllTopicsSeriesAndForgetDeletedTopics(t *testing.T) {
	const name = "kafka_server_brokertopicmetrics_messagesin_total"
	m := New()
	m.Appended("a", 100, 2)
	m.Appended("b", 50, 3)
	series := func() map[string]float64 {
		got := map[string]float64{}
		for _, s := range family(t, m, name).GetMetric() {
			got[labelsOf(s)["topic"]] = s.GetCounter().GetValue()
		}
		return got
	}
	if got := series(); got[""] != 5 || got["a"] != 2 || got["b"] != 3 || len(got) != 3 {
		t.Errorf("messages in %v, want all topics 5, a 2, b 3", got)
	}
	m.ForgetTopic("a")
	if got := series(); got[""] != 5 || got["b"] != 3 || len(got) != 2 {
		t.Errorf("after deleting a: %v, want all topics 5 and b 3", got)
	}
	if f := family(t, m, "kafka_server_brokertopicmetrics_bytesin_total"); len(f.GetMetric()) != 2 {
		t.Errorf("bytes in has %d series after deleting a, want 2", len(f.GetMetric()))
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
	m.ForgetTopic("t")
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

func TestTotalsReadAllTopicsAndRequestTime(t *testing.T) {
	m := New()
	m.Appended("a", 100, 2)
	m.Appended("b", 50, 3)
	m.Fetched("a", 40)
	m.Request(0, 9, 2*time.Millisecond)
	m.Request(0, 8, 3*time.Millisecond)
	got := m.Totals()
	if got.MessagesIn != 5 || got.BytesIn != 150 || got.BytesOut != 40 {
		t.Errorf("totals %+v, want 5 messages, 150 bytes in, 40 out", got)
	}
	if p := got.Requests["Produce"]; p.Count != 2 || p.TimeMs < 4.99 || p.TimeMs > 5.01 {
		t.Errorf("Produce %+v, want 2 requests and 5 ms", p)
	}
	if n := len((*Metrics)(nil).Totals().Requests); n != 0 {
		t.Errorf("nil metrics have %d request totals", n)
	}
}
