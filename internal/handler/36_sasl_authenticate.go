package handler

// SaslAuthenticate (key 36), versions 0–2.
//
//	v0: a SASL token each way (KIP-152).
//	v1: the response carries the session lifetime (KIP-368).
//	v2: flexible.
//
// As with SaslHandshake, the tokens of an authentication are carried by
// the connection's gate in internal/server; one that reaches a handler
// comes after authentication completed (or on a listener without SASL)
// and is refused as Kafka's KafkaApis refuses it.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(36, 0, 2, (*Broker).handleSaslAuthenticate) }

func (b *Broker) handleSaslAuthenticate(_ context.Context, _ *Request) Outcome {
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.ErrorCode = kerr.IllegalSaslState.Code
	msg := "SaslAuthenticate request received after successful authentication"
	resp.ErrorMessage = &msg
	return Ready(resp)
}
