package handler

// DescribeCluster (key 60), versions 0–2.
//
//	v0: cluster id, controller id, brokers, cluster authorized operations.
//	v1: endpoint_type: which kind of endpoint the client means to reach
//	    (1 brokers, 2 controllers); a broker listener answers only 1.
//	v2: include_fenced_brokers and is_fenced per broker.
//
// The brokers are this node, at its endpoint for the listener the request
// arrived on. A broker listener reports a live broker as the controller
// (KIP-590: clients never reach the controller directly), which on a
// single node is this node. Authorized operations are Kafka's
// Integer.MIN_VALUE sentinel unless asked for; when asked, every
// operation a cluster supports, as Kafka answers without an authorizer.

import (
	"context"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(60, 0, 2, (*Broker).handleDescribeCluster) }

// Endpoint types of DescribeCluster v1+.
const (
	endpointTypeBroker     = 1
	endpointTypeController = 2
)

func (b *Broker) handleDescribeCluster(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeClusterRequest)
	resp := kmsg.NewPtrDescribeClusterResponse()
	resp.EndpointType = endpointTypeBroker
	want := req.EndpointType
	if r.Version() == 0 {
		want = endpointTypeBroker // v0 has no endpoint_type: brokers
	}
	if want != endpointTypeBroker {
		resp.ErrorCode = kerr.MismatchedEndpointType.Code
		msg := "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER"
		if want != endpointTypeController {
			resp.ErrorCode = kerr.UnsupportedEndpointType.Code
			msg = "Unsupported endpoint type " + strconv.Itoa(int(want))
		}
		resp.ErrorMessage = &msg
		return Ready(resp)
	}
	resp.ClusterID = b.opts.ClusterID
	resp.ControllerID = b.controllerID()
	resp.ClusterAuthorizedOperations = authorizedOperationsNotRequested
	if req.IncludeClusterAuthorizedOperations {
		resp.ClusterAuthorizedOperations = clusterAuthorizedOperations
	}
	if ep, ok := b.endpointFor(r.Conn.ListenerName); ok && b.registered() {
		broker := kmsg.NewDescribeClusterResponseBroker()
		broker.NodeID, broker.Host, broker.Port, broker.Rack = b.opts.NodeID, ep.Host, ep.Port, b.opts.Rack
		resp.Brokers = append(resp.Brokers, broker)
	}
	return Ready(resp)
}
