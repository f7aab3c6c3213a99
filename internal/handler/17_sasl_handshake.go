package handler

// SaslHandshake (key 17), versions 0–1.
//
//	v0: the client's tokens follow as raw frames.
//	v1: the tokens follow in SaslAuthenticate requests (KIP-152).
//
// On a SASL listener the handshake that starts authentication never gets
// here: the connection's gate in internal/server answers it, as Kafka's
// SaslServerAuthenticator does before KafkaApis. What reaches this handler
// is a handshake on an authenticated connection that is not a
// re-authentication, or on a listener without SASL, and Kafka's KafkaApis
// answers those with ILLEGAL_SASL_STATE.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(17, 0, 1, (*Broker).handleSaslHandshake) }

func (b *Broker) handleSaslHandshake(_ context.Context, _ *Request) Outcome {
	resp := kmsg.NewPtrSASLHandshakeResponse()
	resp.ErrorCode = kerr.IllegalSaslState.Code
	return Ready(resp)
}
