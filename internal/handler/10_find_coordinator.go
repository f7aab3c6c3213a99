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
// A share coordinator key ("group:topicId:partition", Kafka's
// SharePartitionKey) needs v6 and names the broker of its
// __share_group_state partition, which the lookup creates if need be.
// Looking up a group coordinator creates __consumer_offsets if needed,
// and a transaction coordinator __transaction_state, as in Kafka. The broker is named only once the
// key's partition of that topic is open: the partitions of a topic just
// created open a moment later (storage reconciles asynchronously), and
// until then the coordinator could not write the key's records, so the
// answer is COORDINATOR_NOT_AVAILABLE and the client asks again, as
// Kafka answers while the partition has no leader.

import (
	"context"
	"strconv"
	"strings"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"

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
			return b.coordinatorPartitionReady(metadata.ConsumerOffsetsTopic, key)
		case coordinatorTransaction:
			tc := b.txns()
			if tc == nil {
				return kerr.CoordinatorNotAvailable.Code, nil
			}
			if err := tc.EnsureStorage(); err != nil {
				msg := err.Error()
				return kerr.CoordinatorNotAvailable.Code, &msg
			}
			return b.coordinatorPartitionReady(metadata.TransactionStateTopic, key)
		case coordinatorShare:
			return b.findShareCoordinator(r.Version(), key)
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

// findShareCoordinator answers a share coordinator key as Kafka's
// getCoordinator: INVALID_REQUEST before v6 and for a key that is not
// "group:topicId:partition" (SharePartitionKey.getInstance).
func (b *Broker) findShareCoordinator(version int16, key string) (int16, *string) {
	if version < 6 || !validSharePartitionKey(key) {
		return kerr.InvalidRequest.Code, nil
	}
	sc := b.opts.ShareState
	if sc == nil {
		return kerr.CoordinatorNotAvailable.Code, nil
	}
	if err := sc.Load(); err != nil {
		msg := err.Error()
		return kerr.CoordinatorNotAvailable.Code, &msg
	}
	return b.coordinatorPartitionReady(metadata.ShareGroupStateTopic, key)
}

// validSharePartitionKey: three ':'-separated parts, a non-empty group, a
// topic id and a partition index.
func validSharePartitionKey(key string) bool {
	parts := strings.Split(key, ":")
	if len(parts) != 3 || parts[0] == "" {
		return false
	}
	if _, err := metadata.ParseUUID(parts[1]); err != nil {
		return false
	}
	p, err := strconv.Atoi(parts[2])
	return err == nil && p >= 0
}

// coordinatorPartitionReady answers COORDINATOR_NOT_AVAILABLE while the
// key's partition of an internal topic that exists is not open in storage.
// Without the topic (a coordinator that keeps no log) there is nothing to
// wait for. Both coordinators place a key as Kafka does, by the Java hash
// of the key modulo the topic's partition count.
func (b *Broker) coordinatorPartitionReady(topic, key string) (int16, *string) {
	if b.opts.Metadata == nil || b.opts.Storage == nil {
		return 0, nil
	}
	t, ok := b.opts.Metadata.Image().Topic(topic)
	if !ok {
		return 0, nil
	}
	p := group.PartitionFor(key, int32(len(t.Partitions)))
	if _, open := b.opts.Storage.Get(topic, p); !open {
		msg := "The coordinator is not available: " + topic + "-" + strconv.Itoa(int(p)) + " is not loaded yet."
		return kerr.CoordinatorNotAvailable.Code, &msg
	}
	return 0, nil
}
