package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

func gaugePayload(t *testing.T, attrs map[string]string, v float64) []byte {
	t.Helper()
	var kvs []*commonpb.KeyValue
	for k, val := range attrs {
		kvs = append(kvs, &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: val}}})
	}
	data := &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: []*metricspb.Metric{{
		Name: "org.apache.kafka.consumer.fetch.manager.records.lag",
		Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{{
			Attributes: kvs, Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: v},
		}}}},
	}}}}}}}
	b, err := proto.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Two clients that label the same metric differently must still gather:
// Prometheus refuses a family whose series have different label names.
func TestClientTelemetryMergesLabelSetsAndExpires(t *testing.T) {
	now := time.Unix(0, 0)
	ct := NewClientTelemetry()
	ct.now = func() time.Time { return now }
	reg := prometheus.NewRegistry()
	reg.MustRegister(ct)
	if err := ct.Export("a", gaugePayload(t, map[string]string{"topic": "t"}, 1), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := ct.Export("b", gaugePayload(t, map[string]string{"partition": "0"}, 2), 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(families) != 1 || len(families[0].GetMetric()) != 2 || len(families[0].GetMetric()[0].GetLabel()) != 3 {
		t.Fatalf("gathered %v", families)
	}
	now = now.Add(90 * time.Second) // a's series lapse, b's not
	families, _ = reg.Gather()
	if len(families) != 1 || len(families[0].GetMetric()) != 1 {
		t.Fatalf("after a expired: %v", families)
	}
	if err := ct.Export("c", []byte("\xff\xff"), time.Minute); err == nil {
		t.Fatal("a payload that is not OTLP was accepted")
	}
}
