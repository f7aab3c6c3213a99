package handler

// ShareGroupHeartbeat (key 76), versions 0–1: members of share groups
// (KIP-932) join, heartbeat and leave, and get their assignment.
//
//	v0: Kafka 4.0's early-access version, which Kafka 4.1 removed; it has
//	    the fields of v1 (the seed of this project is its byte layout).
//	v1: the stable version of Kafka 4.1 and later.
//
// As Kafka's KafkaApis: READ on the group and DESCRIBE on the subscribed
// topics are checked first (authorize_share.go), then a member id that is
// empty or longer than 36 characters is INVALID_REQUEST. Assigned topics
// are answered by id. The state machine is group.Coordinator.ShareHeartbeat.

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
)

func init() { register(76, 0, 1, (*Broker).handleShareGroupHeartbeat) }

// validShareMemberID is KafkaApis.isMemberIdValid: a client-made UUID,
// at most 36 characters.
func validShareMemberID(id string) bool { return id != "" && len(id) <= 36 }

func (b *Broker) handleShareGroupHeartbeat(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ShareGroupHeartbeatRequest)
	resp := kmsg.NewPtrShareGroupHeartbeatResponse()
	if !validShareMemberID(req.MemberID) {
		msg := "Invalid member id in the request."
		resp.ErrorCode, resp.ErrorMessage = kerr.InvalidRequest.Code, &msg
		return Ready(resp)
	}
	gc := b.groups()
	if gc == nil || b.opts.Metadata == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	img := b.opts.Metadata.Image()
	res := gc.ShareHeartbeat(group.ShareHeartbeat{
		GroupID: req.GroupID, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, RackID: req.RackID,
		SubscribedTopics: req.SubscribedTopicNames, ClientID: clientID(r), ClientHost: clientHost(r.Conn),
		Topics: imageTopics{img},
	})
	if res.Err != nil {
		resp.ErrorCode = res.Err.Code
		if res.ErrMessage != "" {
			msg := res.ErrMessage
			resp.ErrorMessage = &msg
		}
		return Ready(resp)
	}
	id := res.MemberID
	resp.MemberID = &id
	resp.MemberEpoch = res.MemberEpoch
	resp.HeartbeatIntervalMillis = int32(res.HeartbeatInterval / time.Millisecond)
	if res.Assignment != nil && req.MemberEpoch >= 0 {
		a := kmsg.NewShareGroupHeartbeatResponseAssignment()
		a.TopicPartitions = []kmsg.ShareGroupHeartbeatResponseAssignmentTopicPartition{}
		for _, name := range slices.Sorted(maps.Keys(res.Assignment)) {
			tp, ok := img.Topic(name)
			if !ok {
				continue
			}
			at := kmsg.NewShareGroupHeartbeatResponseAssignmentTopicPartition()
			at.TopicID, at.Partitions = tp.ID, res.Assignment[name]
			a.TopicPartitions = append(a.TopicPartitions, at)
		}
		resp.Assignment = &a
	}
	if res.Wait == nil {
		return Ready(resp)
	}
	sent := req.MemberEpoch
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		if c := waitDurable(ctx, res.Wait); c != 0 {
			fail := kmsg.NewPtrShareGroupHeartbeatResponse()
			fail.ErrorCode, fail.MemberEpoch = c, sent
			return fail
		}
		return resp
	}}
}
