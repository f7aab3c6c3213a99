package handler

// GetTelemetrySubscriptions (key 71), version 0 (KIP-714).
//
// A client with no instance id (zero) is given a new one. It is told what
// the client-metrics subscriptions matching it (client id, software name
// and version, source address and port, instance id) ask for: the metric
// prefixes, the shortest push interval, the subscription id to push with,
// the compression types Karst decodes, telemetry.max.bytes and delta
// temporality, as Kafka's ClientMetricsManager answers. Asking again
// within the push interval is THROTTLING_QUOTA_EXCEEDED, unless the
// subscription changed. Kafka serves this API only with a telemetry
// receiver plugin; Karst always does and exports what clients push on its
// Prometheus endpoint.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metrics"
)

func init() { register(71, 0, 0, (*Broker).handleGetTelemetrySubscriptions) }

func (b *Broker) handleGetTelemetrySubscriptions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.GetTelemetrySubscriptionsRequest)
	resp := kmsg.NewPtrGetTelemetrySubscriptionsResponse()
	id := req.ClientInstanceID
	if id == ([16]byte{}) {
		id = newClientInstanceID()
	}
	sub, code := b.opts.ClientInstances.GetSubscription(id, b.telemetrySubscription(r, id))
	if code != 0 {
		resp.ErrorCode = code
		return Ready(resp)
	}
	resp.ClientInstanceID = id
	resp.SubscriptionID = sub.ID
	resp.AcceptedCompressionTypes = slices.Clone(metrics.AcceptedCompressionTypes)
	resp.PushIntervalMillis = sub.IntervalMs
	resp.TelemetryMaxBytes = metrics.TelemetryMaxBytes
	resp.DeltaTemporality = true
	resp.RequestedMetrics = append([]string{}, sub.Metrics...)
	return Ready(resp)
}
