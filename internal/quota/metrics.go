package quota

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// MaxSeriesPerKind bounds the entities exported one by one for each quota
// type; the rest are summed into one series labelled user="other",
// client_id="other", so a client cycling through client ids cannot grow
// the metrics without bound. Sensors idle for an hour are dropped, as
// Kafka drops them.
const MaxSeriesPerKind = 100

// otherLabel is the user and client_id of the series that sums the
// entities past MaxSeriesPerKind.
const otherLabel = "other"

// metricNames are each kind's series, named after Kafka's quota metrics
// (group = the quota type, as kafka.server:type=Produce,user=..,client-id=..).
type kindDescs struct {
	measure, second, throttle, throttled, sensors *prometheus.Desc
}

func newDescs(k Kind) kindDescs {
	prefix := "kafka_server_" + strings.ToLower(k.String()) + "_"
	labels := []string{"user", "client_id"}
	d := kindDescs{
		throttle: prometheus.NewDesc(prefix+"throttle_time", "Average throttle time in ms per user/client-id (Kafka's throttle-time).", labels, nil),
		throttled: prometheus.NewDesc(prefix+"throttled_responses_total",
			"Responses whose connection was muted for this quota.", nil, nil),
		sensors: prometheus.NewDesc(prefix+"quota_sensors", "Entities measured for this quota (sensors not yet expired).", nil, nil),
	}
	switch k {
	case Produce, Fetch:
		d.measure = prometheus.NewDesc(prefix+"byte_rate", "Bytes per second per user/client-id over the quota window (Kafka's byte-rate).", labels, nil)
	case Request:
		d.measure = prometheus.NewDesc(prefix+"request_time", "Request handler time per user/client-id, as a percentage of one thread (Kafka's request-time).", labels, nil)
	case ControllerMutation:
		d.measure = prometheus.NewDesc(prefix+"mutation_rate", "Partition mutations per second per user/client-id (Kafka's mutation-rate).", labels, nil)
		d.second = prometheus.NewDesc(prefix+"tokens", "Tokens left in the mutation token bucket per user/client-id (Kafka's tokens).", labels, nil)
	}
	return d
}

// Collector exports the Manager's sensors to Prometheus.
type Collector struct {
	m     *Manager
	descs [numKinds]kindDescs
	// ipThrottled counts connections throttled by connection_creation_rate.
	ipThrottled *prometheus.Desc
}

// Collector returns the manager's Prometheus collector.
func (m *Manager) Collector() *Collector {
	c := &Collector{m: m, ipThrottled: prometheus.NewDesc("kafka_network_ip_connections_throttled_total",
		"Connections accepted over their IP's connection_creation_rate and closed after the throttle time (Kafka's ip-connection-accept-throttle-time counts them).", nil, nil)}
	for k := range numKinds {
		c.descs[k] = newDescs(k)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.ipThrottled
	for _, d := range c.descs {
		for _, x := range []*prometheus.Desc{d.measure, d.second, d.throttle, d.throttled, d.sensors} {
			if x != nil {
				ch <- x
			}
		}
	}
}

type sensorValues struct {
	tags                      Tags
	measure, second, throttle float64
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	now := c.m.nowMs()
	ch <- prometheus.MustNewConstMetric(c.ipThrottled, prometheus.CounterValue, float64(c.m.ConnectionsThrottled()))
	for k, km := range c.m.kinds {
		d := c.descs[k]
		values := km.snapshot(now)
		ch <- prometheus.MustNewConstMetric(d.throttled, prometheus.CounterValue, float64(km.throttled.Load()))
		ch <- prometheus.MustNewConstMetric(d.sensors, prometheus.GaugeValue, float64(len(values)))
		// The busiest entities are shown; the rest are summed.
		slices.SortFunc(values, func(a, b sensorValues) int {
			return cmp.Or(cmp.Compare(b.measure, a.measure), cmp.Compare(a.tags.User, b.tags.User), cmp.Compare(a.tags.ClientID, b.tags.ClientID))
		})
		if len(values) > MaxSeriesPerKind {
			other := sensorValues{tags: Tags{User: otherLabel, ClientID: otherLabel}}
			for _, v := range values[MaxSeriesPerKind:] {
				other.measure += v.measure
				other.second += v.second
				other.throttle = math.Max(other.throttle, v.throttle)
			}
			values = append(values[:MaxSeriesPerKind], other)
		}
		for _, v := range values {
			ch <- prometheus.MustNewConstMetric(d.measure, prometheus.GaugeValue, v.measure, v.tags.User, v.tags.ClientID)
			if d.second != nil {
				ch <- prometheus.MustNewConstMetric(d.second, prometheus.GaugeValue, v.second, v.tags.User, v.tags.ClientID)
			}
			ch <- prometheus.MustNewConstMetric(d.throttle, prometheus.GaugeValue, v.throttle, v.tags.User, v.tags.ClientID)
		}
	}
}

// snapshot measures every sensor at now.
func (km *manager) snapshot(now int64) []sensorValues {
	km.mu.Lock()
	sensors := make(map[Tags]*sensor, len(km.sensors))
	for t, s := range km.sensors {
		sensors[t] = s
	}
	km.mu.Unlock()
	l := km.limits.Load()
	out := make([]sensorValues, 0, len(sensors))
	for t, s := range sensors {
		s.mu.Lock()
		v := sensorValues{tags: t, measure: s.rate.measure(km.window, now), throttle: s.throttle.measure(throttleWindow, now)}
		if km.kind == ControllerMutation {
			if bound, ok := l.limit(t); ok {
				v.second = s.bucket.measure(km.window, bound, now)
			} else {
				v.second = math.MaxInt64
			}
		}
		s.mu.Unlock()
		out = append(out, v)
	}
	return out
}
