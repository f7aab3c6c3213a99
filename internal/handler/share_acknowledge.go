package handler

// ShareAcknowledge (key 79), versions 1-2 (v2 adds IsRenewAck, KIP-1222,
// and AcquisitionLockTimeoutMillis in the response).
//
// It acknowledges within an open share session: epoch 0 cannot open one
// (INVALID_SHARE_SESSION_EPOCH); any other epoch must be the session's
// next (INVALID_SHARE_SESSION_EPOCH, or SHARE_SESSION_NOT_FOUND without a
// session) and moves it on; -1 closes the session once its
// acknowledgements are applied, releasing what the member still holds.
// Each partition's answer comes once its acknowledgements are durable in
// __share_group_state.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/share"
)

func init() { register(79, 1, 2, (*Broker).handleShareAcknowledge) }

func (b *Broker) handleShareAcknowledge(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ShareAcknowledgeRequest)
	resp := kmsg.NewPtrShareAcknowledgeResponse()
	group, member, code := b.shareMember(req.GroupID, req.MemberID)
	if code != 0 {
		resp.ErrorCode = code
		return Ready(resp)
	}
	if req.Version >= 2 {
		resp.AcquisitionLockTimeoutMillis = int32(b.shareSettings(group).RecordLockDuration / time.Millisecond)
	}
	key := share.SessionKey{Group: group, Member: member}
	sessions := b.opts.Shares.Sessions
	switch req.ShareSessionEpoch {
	case share.InitialEpoch:
		resp.ErrorCode = kerr.InvalidShareSessionEpoch.Code
		return Ready(resp)
	case share.FinalEpoch:
		if sessions.Partitions(key) == nil {
			resp.ErrorCode = kerr.ShareSessionNotFound.Code
			return Ready(resp)
		}
	default:
		if _, err := sessions.Next(key, req.ShareSessionEpoch, nil, nil); err != nil {
			resp.ErrorCode = shareErrorCode(err)
			return Ready(resp)
		}
	}
	img := b.image()
	renew := req.Version >= 2 && req.IsRenewAck
	for _, t := range req.Topics {
		rt := kmsg.NewShareAcknowledgeResponseTopic()
		rt.TopicID = t.TopicID
		for _, p := range t.Partitions {
			if len(p.AcknowledgementBatches) == 0 {
				// Kafka 4.4 acknowledges, and answers, only the partitions
				// that carry batches.
				continue
			}
			a := shareAck{tp: share.TopicPartition{TopicID: t.TopicID, Partition: p.Partition}}
			for _, ab := range p.AcknowledgementBatches {
				a.acks = append(a.acks, toAck(ab.FirstOffset, ab.LastOffset, ab.AcknowledgeTypes))
			}
			rp := kmsg.NewShareAcknowledgeResponseTopicPartition()
			rp.Partition = p.Partition
			code, msg := b.acknowledge(img, group, member, a, renew)
			rp.ErrorCode, rp.ErrorMessage = code, optionalString(msg)
			rp.CurrentLeader.LeaderID, rp.CurrentLeader.LeaderEpoch = shareCurrentLeader(img, t.TopicID, p.Partition, code)
			rt.Partitions = append(rt.Partitions, rp)
		}
		if len(rt.Partitions) > 0 {
			resp.Topics = append(resp.Topics, rt)
		}
	}
	if req.ShareSessionEpoch == share.FinalEpoch {
		resp.ErrorCode = b.closeShareSession(r.Conn, key)
	}
	return Ready(resp)
}
