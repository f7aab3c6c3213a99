package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Totals are the broker-wide counters at one moment, for a reader that
// samples them itself (the web console's throughput and latency charts)
// without a full scrape, which would also read every group's lag.
type Totals struct {
	MessagesIn, BytesIn, BytesOut float64
	// Requests are by API name: how many were answered and the
	// milliseconds they took in all.
	Requests map[string]RequestTotal
}

// RequestTotal is one API's request count and summed time.
type RequestTotal struct {
	Count  uint64
	TimeMs float64
}

// Totals reads the counters; a nil *Metrics has none.
func (m *Metrics) Totals() Totals {
	t := Totals{Requests: map[string]RequestTotal{}}
	if m == nil {
		return t
	}
	t.MessagesIn, t.BytesIn, t.BytesOut = counterValue(m.messagesIn.all), counterValue(m.bytesIn.all), counterValue(m.bytesOut.all)
	ch := make(chan prometheus.Metric, 64)
	go func() {
		m.requestTime.Collect(ch)
		close(ch)
	}()
	for metric := range ch {
		var d dto.Metric
		if metric.Write(&d) != nil || len(d.GetLabel()) != 1 {
			continue
		}
		t.Requests[d.GetLabel()[0].GetValue()] = RequestTotal{Count: d.GetSummary().GetSampleCount(), TimeMs: d.GetSummary().GetSampleSum()}
	}
	return t
}

func counterValue(c prometheus.Counter) float64 {
	var d dto.Metric
	if c.Write(&d) != nil {
		return 0
	}
	return d.GetCounter().GetValue()
}
