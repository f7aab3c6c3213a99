package handler

import (
	"bytes"
	"compress/gzip"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
)

// telemetryPayload is an OTLP MetricsData with one delta sum, gzipped as
// a client compresses its push.
func telemetryPayload(t *testing.T, value float64) []byte {
	t.Helper()
	data := &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: []*metricspb.Metric{{
		Name: "org.apache.kafka.producer.record.send.total",
		Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
			AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA, IsMonotonic: true,
			DataPoints: []*metricspb.NumberDataPoint{{
				Attributes: []*commonpb.KeyValue{{Key: "client_id", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "app"}}}},
				Value:      &metricspb.NumberDataPoint_AsDouble{AsDouble: value},
			}},
		}},
	}}}}}}}
	raw, err := proto.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	return buf.Bytes()
}

func TestTelemetrySubscriptionPushAndExport(t *testing.T) {
	f := newAdminFixture(t, nil)

	get := func(id [16]byte) *kmsg.GetTelemetrySubscriptionsResponse {
		req := kmsg.NewPtrGetTelemetrySubscriptionsRequest()
		req.ClientInstanceID = id
		return f.call(req, 0).(*kmsg.GetTelemetrySubscriptionsResponse)
	}
	// No subscription: the client is asked for nothing.
	first := get([16]byte{})
	if first.ErrorCode != 0 || first.ClientInstanceID == ([16]byte{}) || len(first.RequestedMetrics) != 0 || first.PushIntervalMillis != 300000 ||
		!first.DeltaTemporality || first.TelemetryMaxBytes != 1<<20 || len(first.AcceptedCompressionTypes) != 4 {
		t.Fatalf("without a subscription: %+v", first)
	}
	id := first.ClientInstanceID
	if again := get(id); again.ErrorCode != kerr.ThrottlingQuotaExceeded.Code {
		t.Fatalf("asking again at once: %d, want THROTTLING_QUOTA_EXCEEDED", again.ErrorCode)
	}
	// A subscription changes the answer at once.
	if r := alterResource(f, kmsg.ConfigResourceTypeClientMetrics, "producers", "metrics", "org.apache.kafka.producer.", "interval.ms", "1000"); r.ErrorCode != 0 {
		t.Fatalf("subscription: %v", r.ErrorMessage)
	}
	sub := get(id)
	if sub.ErrorCode != 0 || len(sub.RequestedMetrics) != 1 || sub.RequestedMetrics[0] != "org.apache.kafka.producer." || sub.PushIntervalMillis != 1000 || sub.SubscriptionID == first.SubscriptionID {
		t.Fatalf("with a subscription: %+v", sub)
	}
	push := func(subID int32, codec int8, payload []byte, terminating bool) int16 {
		req := kmsg.NewPtrPushTelemetryRequest()
		req.ClientInstanceID, req.SubscriptionID, req.CompressionType, req.Metrics, req.Terminating = id, subID, codec, payload, terminating
		return f.call(req, 0).(*kmsg.PushTelemetryResponse).ErrorCode
	}
	if code := push(sub.SubscriptionID+1, 1, telemetryPayload(t, 3), false); code != kerr.UnknownSubscriptionID.Code {
		t.Fatalf("stale subscription id: %d", code)
	}
	// The refused push above used up the push slot, so the next is early.
	if code := push(sub.SubscriptionID, 1, telemetryPayload(t, 3), false); code != kerr.ThrottlingQuotaExceeded.Code {
		t.Fatalf("a second push within the interval: %d", code)
	}
	// A terminating push is let through and exported, then the series go.
	if code := push(sub.SubscriptionID, 1, telemetryPayload(t, 3), true); code != 0 {
		t.Fatalf("terminating push: %d", code)
	}
	if code := push(sub.SubscriptionID, 1, nil, false); code != kerr.InvalidRequest.Code {
		t.Fatalf("a push after terminating: %d", code)
	}
	req := kmsg.NewPtrPushTelemetryRequest()
	if code := f.call(req, 0).(*kmsg.PushTelemetryResponse).ErrorCode; code != kerr.InvalidRequest.Code {
		t.Fatalf("zero instance id: %d", code)
	}
}

func TestTelemetryPushIsExportedToPrometheus(t *testing.T) {
	f := newAdminFixture(t, nil)
	reg := prometheus.NewRegistry()
	f.b.opts.ClientTelemetry = metrics.NewClientTelemetry()
	reg.MustRegister(f.b.opts.ClientTelemetry)
	now := time.Unix(1000, 0)
	f.b.opts.ClientInstances = metrics.NewClientInstances(func() time.Time { return now })
	alterResource(f, kmsg.ConfigResourceTypeClientMetrics, "all", "metrics", "*", "interval.ms", "100")
	req := kmsg.NewPtrGetTelemetrySubscriptionsRequest()
	sub := f.call(req, 0).(*kmsg.GetTelemetrySubscriptionsResponse)
	if sub.ErrorCode != 0 || len(sub.RequestedMetrics) != 1 || sub.RequestedMetrics[0] != "*" {
		t.Fatalf("subscription %+v", sub)
	}
	push := kmsg.NewPtrPushTelemetryRequest()
	push.ClientInstanceID, push.SubscriptionID, push.CompressionType, push.Metrics = sub.ClientInstanceID, sub.SubscriptionID, 1, telemetryPayload(t, 5)
	if code := f.call(push, 0).(*kmsg.PushTelemetryResponse).ErrorCode; code != 0 {
		t.Fatalf("push: %d", code)
	}
	instance := metadata.UUID(sub.ClientInstanceID).String()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range families {
		if mf.GetName() != "org_apache_kafka_producer_record_send_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["client_instance_id"] == instance && labels["client_id"] == "app" && m.GetCounter().GetValue() == 5 {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the pushed counter is not exported: %v", families)
	}
	// A payload that is not OTLP is INVALID_RECORD.
	now = now.Add(100 * time.Millisecond)
	push.Metrics = []byte("not gzip")
	if code := f.call(push, 0).(*kmsg.PushTelemetryResponse).ErrorCode; code != kerr.InvalidRecord.Code {
		t.Fatalf("garbage payload: %d", code)
	}
}
