package handler

// UnregisterBroker (key 64), version 0.
//
//	v0: remove a broker's registration from the cluster metadata (KIP-500).
//
// As Kafka's controller answers: a broker id with no registration gets
// BROKER_ID_NOT_REGISTERED ("Broker ID N is not currently registered");
// a registered one, on one node only this node, is removed with an
// UnregisterBrokerRecord and the answer is NONE (with an empty message, as
// Kafka sends). Kafka's broker that unregistered itself keeps running but
// is out of the cluster until it restarts; Karst keeps serving (clients
// learn its endpoints from its config, not from the registration) and
// registers again when it next starts, as Kafka's broker does.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(64, 0, 0, (*Broker).handleUnregisterBroker) }

func (b *Broker) handleUnregisterBroker(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.UnregisterBrokerRequest)
	resp := kmsg.NewPtrUnregisterBrokerResponse()
	err := b.opts.Metadata.UnregisterBroker(req.BrokerID)
	resp.ErrorCode = errorCode(err)
	if err != nil {
		resp.ErrorMessage = errorMessage(err)
		return Ready(resp)
	}
	empty := ""
	resp.ErrorMessage = &empty
	b.logger.Warn("unregistered broker", "broker", req.BrokerID)
	return Ready(resp)
}
