package metrics

import "github.com/prometheus/client_golang/prometheus"

// Purgatory names one of Kafka's delayed-operation purgatories: the
// requests parked until something happens (data arrives, an fsync ends)
// or their timeout passes.
type Purgatory int

const (
	// FetchPurgatory holds Fetch long polls waiting for MinBytes.
	FetchPurgatory Purgatory = iota
	// ProducePurgatory holds acks=all Produce requests waiting for their
	// records to be durable (Karst's group-committed fsync; Kafka's wait
	// for the in-sync replicas).
	ProducePurgatory
	purgatories
)

// purgatoryNames are the delayedOperation label values Kafka uses.
var purgatoryNames = [purgatories]string{FetchPurgatory: "Fetch", ProducePurgatory: "Produce"}

func newPurgatoryGauges() (*prometheus.GaugeVec, [purgatories]prometheus.Gauge) {
	vec := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "kafka", Subsystem: "server", Name: "delayedoperationpurgatory_purgatorysize",
		Help: "Requests parked waiting, by operation (Kafka's DelayedOperationPurgatory PurgatorySize).",
	}, []string{"delayedoperation"})
	var gauges [purgatories]prometheus.Gauge
	for p, name := range purgatoryNames {
		// Resolved once, so entering and leaving cost one atomic add each.
		gauges[p] = vec.WithLabelValues(name)
	}
	return vec, gauges
}

// EnterPurgatory counts a request that starts waiting in p; the caller
// must pair it with LeavePurgatory.
func (m *Metrics) EnterPurgatory(p Purgatory) {
	if m == nil || p < 0 || p >= purgatories {
		return
	}
	m.purgatory[p].Inc()
}

// LeavePurgatory ends the wait EnterPurgatory counted.
func (m *Metrics) LeavePurgatory(p Purgatory) {
	if m == nil || p < 0 || p >= purgatories {
		return
	}
	m.purgatory[p].Dec()
}
