package handler

// FindCoordinator (key 10), versions 0–6.
//
//	v1: key type (0 group, 1 transaction), throttle, error message.
//	v2: no change.
//	v3: flexible.
//	v4: many keys per request (KIP-699).
//	v5: no change (TRANSACTION_ABORTABLE in the transactional client).
//	v6: key type 2, share coordinator (KIP-932).
//
// A single node coordinates every group and every transactional id.
// The share coordinator does not exist yet: that key answers
// COORDINATOR_NOT_AVAILABLE. Looking up a group coordinator creates
// __consumer_offsets if needed, and a transaction coordinator
// __transaction_state, as in Kafka.

import (
	"context"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(10, 0, 6, (*Broker).handleFindCoordinator) }

// Coordinator key types.
const (
	coordinatorGroup       = 0
	coordinatorTransaction = 1
	coordinatorShare       = 2
)

func (b *Broker) handleFindCoordinator(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.FindCoordinatorRequest)
	resp := kmsg.NewPtrFindCoordinatorResponse()
	ep, _ := b.endpointFor(r.Conn.ListenerName)
	find := func(key string) (int16, *string) {
		switch req.CoordinatorType {
		case coordinatorGroup:
			gc := b.groups()
			if gc == nil {
				return kerr.CoordinatorNotAvailable.Code, nil
			}
			if err := gc.EnsureStorage(); err != nil {
				msg := err.Error()
				return kerr.CoordinatorNotAvailable.Code, &msg
			}
			return 0, nil
		case coordinatorTransaction:
			tc := b.txns()
			if tc == nil {
				return kerr.CoordinatorNotAvailable.Code, nil
			}
			if err := tc.EnsureStorage(); err != nil {
				msg := err.Error()
				return kerr.CoordinatorNotAvailable.Code, &msg
			}
			return 0, nil
		case coordinatorShare:
			return kerr.CoordinatorNotAvailable.Code, nil
		}
		msg := "Unsupported key type " + strconv.Itoa(int(req.CoordinatorType))
		return kerr.InvalidRequest.Code, &msg
	}
	if r.Version() < 4 {
		c, msg := find(req.CoordinatorKey)
		resp.ErrorCode, resp.ErrorMessage = c, msg
		resp.NodeID, resp.Host, resp.Port = -1, "", -1
		if c == 0 {
			resp.NodeID, resp.Host, resp.Port = b.opts.NodeID, ep.Host, ep.Port
		}
		return Ready(resp)
	}
	for _, key := range req.CoordinatorKeys {
		c := kmsg.NewFindCoordinatorResponseCoordinator()
		c.Key = key
		c.ErrorCode, c.ErrorMessage = find(key)
		c.NodeID, c.Host, c.Port = -1, "", -1
		if c.ErrorCode == 0 {
			c.NodeID, c.Host, c.Port = b.opts.NodeID, ep.Host, ep.Port
		}
		resp.Coordinators = append(resp.Coordinators, c)
	}
	return Ready(resp)
}
