package handler

// UnregisterBroker (key 64), version 0.
//
//	v0: remove a broker's registration from the cluster metadata (KIP-500).
//
// As Kafka 4.4's controller answers: a broker id with no registration gets
// BROKER_ID_NOT_REGISTERED ("Broker ID N is not currently registered");
// a registered one, on one node only this node, is taken out of every ISR
// and the leadership of its partitions, then removed with an
// UnregisterBrokerRecord (metadata.Image.UnregisterBroker), and the answer
// is NONE (with an empty message, as Kafka sends). Measured on a 4.4.0
// single node, its broker then drops out of the cluster while the process
// runs on: Metadata and DescribeCluster list no broker and controller -1,
// every partition is LEADER_NOT_AVAILABLE with no leader and the node
// offline, and produce and fetch get NOT_LEADER_OR_FOLLOWER; its
// heartbeats are refused (STALE_BROKER_EPOCH) until it restarts, registers
// again and is elected back from the ELR. Karst answers the same, and its
// next start registers it and elects it again (ActivationRecords).

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

// registered reports whether this node's broker registration is in the
// metadata and unfenced: whether Kafka would count it among the live
// brokers that Metadata and DescribeCluster list. A broker without
// metadata (a bare protocol server) counts as registered.
func (b *Broker) registered() bool {
	if b.opts.Metadata == nil {
		return true
	}
	reg, ok := b.image().Broker(b.opts.NodeID)
	return ok && !reg.Fenced
}

// controllerID is the controller Metadata and DescribeCluster name: Kafka
// names a live broker (KIP-590), so none once this node unregistered.
func (b *Broker) controllerID() int32 {
	if b.registered() {
		return b.opts.NodeID
	}
	return -1
}
