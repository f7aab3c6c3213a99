package metrics

// Client telemetry export (KIP-714): the OTLP metrics clients push with
// PushTelemetry, served on the Prometheus endpoint as they arrive. Kafka
// needs a ClientTelemetryReceiver plugin for this; Karst does it built in.
//
// Each OTLP metric becomes one Prometheus family named after it
// (org.apache.kafka.producer.record.send.rate ->
// org_apache_kafka_producer_record_send_rate) with the client_instance_id
// and the data point's attributes as labels. Sums become counters (the
// clients push deltas, which are added up; cumulative sums are taken as
// they are), gauges gauges, histograms a _count and a _sum counter. A
// client's series go when the client does: a terminating push, or no push
// for the instance's expiry.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// ClientTelemetry holds the latest metric values pushed by each client
// instance and collects them for Prometheus.
type ClientTelemetry struct {
	mu      sync.Mutex
	clients map[string]*clientSeries // by client instance id
	now     func() time.Time
}

// clientSeries is one client instance's values, keyed by family name then
// by the rendered label set.
type clientSeries struct {
	expires  time.Time
	families map[string]*telemetryFamily
}

type telemetryFamily struct {
	help    string
	counter bool
	points  map[string]*point
}

type point struct {
	labels map[string]string
	value  float64
}

// NewClientTelemetry returns an empty export; register it with Register.
func NewClientTelemetry() *ClientTelemetry {
	return &ClientTelemetry{clients: map[string]*clientSeries{}, now: time.Now}
}

// Register adds the export to m's registry so /metrics serves it.
func (t *ClientTelemetry) Register(m *Metrics) {
	if m != nil {
		m.Registry.MustRegister(t)
	}
}

// Export decodes an uncompressed OTLP MetricsData payload from a client
// instance and records its values; the series live for ttl unless the
// client pushes again.
func (t *ClientTelemetry) Export(instanceID string, payload []byte, ttl time.Duration) error {
	var data metricspb.MetricsData
	if err := proto.Unmarshal(payload, &data); err != nil {
		return fmt.Errorf("client telemetry: decoding OTLP metrics: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	cs := t.clients[instanceID]
	if cs == nil {
		cs = &clientSeries{families: map[string]*telemetryFamily{}}
		t.clients[instanceID] = cs
	}
	cs.expires = t.now().Add(ttl)
	for _, rm := range data.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				cs.record(m)
			}
		}
	}
	return nil
}

// Forget drops a client instance's series (it terminated).
func (t *ClientTelemetry) Forget(instanceID string) {
	t.mu.Lock()
	delete(t.clients, instanceID)
	t.mu.Unlock()
}

func (cs *clientSeries) family(name, help string, counter bool) *telemetryFamily {
	f := cs.families[name]
	if f == nil || f.counter != counter {
		f = &telemetryFamily{help: help, counter: counter, points: map[string]*point{}}
		cs.families[name] = f
	}
	return f
}

func (f *telemetryFamily) set(attrs []*commonpb.KeyValue, v float64, add bool) {
	labels := map[string]string{}
	for _, kv := range attrs {
		labels[promName(kv.GetKey())] = anyValueString(kv.GetValue())
	}
	key := renderLabels(labels)
	p := f.points[key]
	if p == nil {
		p = &point{labels: labels}
		f.points[key] = p
	}
	if add {
		p.value += v
	} else {
		p.value = v
	}
}

func (cs *clientSeries) record(m *metricspb.Metric) {
	name, help := promName(m.GetName()), m.GetDescription()
	if help == "" {
		help = "Client metric " + m.GetName() + " (KIP-714)."
	}
	switch d := m.GetData().(type) {
	case *metricspb.Metric_Gauge:
		f := cs.family(name, help, false)
		for _, p := range d.Gauge.GetDataPoints() {
			f.set(p.GetAttributes(), numberValue(p), false)
		}
	case *metricspb.Metric_Sum:
		delta := d.Sum.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
		f := cs.family(name, help, d.Sum.GetIsMonotonic())
		if !d.Sum.GetIsMonotonic() {
			delta = false // a non-monotonic sum is a level: keep the latest
		}
		for _, p := range d.Sum.GetDataPoints() {
			f.set(p.GetAttributes(), numberValue(p), delta)
		}
	case *metricspb.Metric_Histogram:
		delta := d.Histogram.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
		count, sum := cs.family(name+"_count", help, true), cs.family(name+"_sum", help, true)
		for _, p := range d.Histogram.GetDataPoints() {
			count.set(p.GetAttributes(), float64(p.GetCount()), delta)
			sum.set(p.GetAttributes(), p.GetSum(), delta)
		}
	}
}

func numberValue(p *metricspb.NumberDataPoint) float64 {
	if v, ok := p.GetValue().(*metricspb.NumberDataPoint_AsInt); ok {
		return float64(v.AsInt)
	}
	return p.GetAsDouble()
}

func anyValueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	}
	return ""
}

// promName maps a dotted OTLP name to a Prometheus name.
func promName(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func renderLabels(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q,", k, labels[k])
	}
	return b.String()
}

// clientInstanceLabel names the client in every series.
const clientInstanceLabel = "client_instance_id"

// Describe sends nothing: the families are known only once clients push,
// which makes this an unchecked collector.
func (t *ClientTelemetry) Describe(chan<- *prometheus.Desc) {}

// Collect sends every live client's values; within a family every series
// carries the union of the label names seen, as Prometheus requires.
func (t *ClientTelemetry) Collect(ch chan<- prometheus.Metric) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	type merged struct {
		help    string
		counter bool
		labels  map[string]bool
		series  []map[string]string
		values  []float64
	}
	families := map[string]*merged{}
	for id, cs := range t.clients {
		if now.After(cs.expires) {
			delete(t.clients, id)
			continue
		}
		for name, f := range cs.families {
			m := families[name]
			if m == nil {
				m = &merged{help: f.help, counter: f.counter, labels: map[string]bool{clientInstanceLabel: true}}
				families[name] = m
			}
			if m.counter != f.counter {
				continue // two clients disagree on the kind: keep the first
			}
			for _, p := range f.points {
				labels := map[string]string{clientInstanceLabel: id}
				for k, v := range p.labels {
					if k != clientInstanceLabel {
						labels[k] = v
						m.labels[k] = true
					}
				}
				m.series = append(m.series, labels)
				m.values = append(m.values, p.value)
			}
		}
	}
	for name, m := range families {
		names := make([]string, 0, len(m.labels))
		for k := range m.labels {
			names = append(names, k)
		}
		slices.Sort(names)
		kind := prometheus.GaugeValue
		if m.counter {
			kind = prometheus.CounterValue
		}
		desc := prometheus.NewDesc(name, m.help, names, nil)
		for i, labels := range m.series {
			values := make([]string, len(names))
			for j, n := range names {
				values[j] = labels[n]
			}
			v := m.values[i]
			if math.IsNaN(v) {
				continue
			}
			if metric, err := prometheus.NewConstMetric(desc, kind, v, values...); err == nil {
				ch <- metric
			}
		}
	}
}
