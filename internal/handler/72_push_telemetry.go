package handler

// PushTelemetry (key 72), version 0 (KIP-714).
//
// Checked as Kafka's ClientMetricsManager checks it: a reserved instance
// id, or a push after a terminating one, is INVALID_REQUEST; a push within
// the push interval THROTTLING_QUOTA_EXCEEDED (the first after
// GetTelemetrySubscriptions and a terminating one are let through); a
// stale subscription id UNKNOWN_SUBSCRIPTION_ID; an unknown codec
// UNSUPPORTED_COMPRESSION_TYPE; more than telemetry.max.bytes
// TELEMETRY_TOO_LARGE. The metrics, OTLP protobuf compressed with the
// given codec, are exported on the Prometheus endpoint (see
// metrics.ClientTelemetry); a payload that does not decode is
// INVALID_RECORD.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/record"
)

func init() { register(72, 0, 0, (*Broker).handlePushTelemetry) }

func (b *Broker) handlePushTelemetry(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.PushTelemetryRequest)
	resp := kmsg.NewPtrPushTelemetryResponse()
	if reservedInstanceID(req.ClientInstanceID) {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return Ready(resp)
	}
	id := req.ClientInstanceID
	code, ttl := b.opts.ClientInstances.Push(id, b.telemetrySubscription(r, id), req.SubscriptionID, req.CompressionType, len(req.Metrics), req.Terminating)
	if code != 0 {
		resp.ErrorCode = code
		return Ready(resp)
	}
	instance := metadata.UUID(id).String()
	if len(req.Metrics) > 0 {
		payload, err := record.Decompress(nil, record.Codec(req.CompressionType), req.Metrics, metrics.TelemetryMaxBytes*16)
		if err == nil {
			err = b.opts.ClientTelemetry.Export(instance, payload, ttl)
		}
		if err != nil {
			b.logger.Warn("client telemetry push not decoded", "client_instance_id", instance, "err", err)
			resp.ErrorCode = kerr.InvalidRecord.Code
			return Ready(resp)
		}
	}
	if req.Terminating {
		b.opts.ClientTelemetry.Forget(instance)
	}
	return Ready(resp)
}
