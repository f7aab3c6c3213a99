package main

import (
	"encoding/base64"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The share-partition APIs (ShareFetch, ShareAcknowledge: READ on the group and READ on the
// topic) and the share coordinator's state APIs (CLUSTER_ACTION on the cluster, as a broker
// asks them). Every phase and version uses a fresh share group, so that one phase's share
// session or share state cannot change the next one's answer.
func init() { registerACL(shareACLCases()...) }

func shareACLCases() []aclCase {
	fetchACLs := []acl{groupsACL("g-sf-", opRead), topicACL(dataTopic, opRead)}
	ackACLs := []acl{groupsACL("g-sa-", opRead), topicACL(dataTopic, opRead)}
	cases := []aclCase{
		{key: kmsg.ShareFetch, name: "read", allow: fetchACLs,
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-sf-", phase, v)
				awaitShareAssignment(p.admin, group)
				p.alice.compare("1", shareFetchRequest(p.alice, v, group))
			}},
		{key: kmsg.ShareFetch, name: "topic-unreadable", allow: []acl{groupsACL("g-sft-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-sft-", phase, v)
				awaitShareAssignment(p.admin, group)
				p.alice.compare("1", shareFetchRequest(p.alice, v, group))
			}},
		{key: kmsg.ShareAcknowledge, name: "read", allow: ackACLs,
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-sa-", phase, v)
				awaitShareAssignment(p.admin, group)
				// The super user opens the member's share session (epoch 0), so that alice's
				// acknowledgement is the session's next request (epoch 1).
				p.admin.send(shareFetchRequest(p.admin, 1, group))
				req := kmsg.NewPtrShareAcknowledgeRequest()
				req.SetVersion(v)
				req.GroupID, req.MemberID, req.ShareSessionEpoch = kmsg.StringPtr(group), kmsg.StringPtr(shareMemberID), 1
				t := kmsg.NewShareAcknowledgeRequestTopic()
				t.TopicID = p.alice.topicID(dataTopic)
				part := kmsg.NewShareAcknowledgeRequestTopicPartition()
				t.Partitions = append(t.Partitions, part)
				req.Topics = append(req.Topics, t)
				p.alice.compare("1", req)
			}},
	}
	stateCase := func(key kmsg.Key, initialized bool, build func(p *aclPair, v int16, group string) kmsg.Request) aclCase {
		return aclCase{key: key, name: "cluster-action", allow: []acl{clusterACL(opClusterAction)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-state-"+kmsg.NameForKey(key.Int16())+"-", phase, v)
				shareStateCoordinator(p.admin, group)
				if initialized {
					p.admin.send(initializeShareStateRequest(p.admin, 0, group))
				}
				p.alice.compare("1", build(p, v, group))
			}}
	}
	return append(cases,
		stateCase(kmsg.InitializeShareGroupState, false, func(p *aclPair, v int16, group string) kmsg.Request {
			return initializeShareStateRequest(p.alice, v, group)
		}),
		stateCase(kmsg.ReadShareGroupState, true, func(p *aclPair, v int16, group string) kmsg.Request {
			req := kmsg.NewPtrReadShareGroupStateRequest()
			req.SetVersion(v)
			req.GroupID = group
			t := kmsg.NewReadShareGroupStateRequestTopic()
			t.TopicID = p.alice.topicID(dataTopic)
			part := kmsg.NewReadShareGroupStateRequestTopicPartition()
			part.LeaderEpoch = 0
			t.Partitions = append(t.Partitions, part)
			req.Topics = append(req.Topics, t)
			return req
		}),
		stateCase(kmsg.WriteShareGroupState, true, func(p *aclPair, v int16, group string) kmsg.Request {
			req := kmsg.NewPtrWriteShareGroupStateRequest()
			req.SetVersion(v)
			req.GroupID = group
			t := kmsg.NewWriteShareGroupStateRequestTopic()
			t.TopicID = p.alice.topicID(dataTopic)
			part := kmsg.NewWriteShareGroupStateRequestTopicPartition()
			part.StateEpoch, part.LeaderEpoch, part.StartOffset = 0, 0, 1
			b := kmsg.NewWriteShareGroupStateRequestTopicPartitionStateBatch()
			b.FirstOffset, b.LastOffset, b.DeliveryState, b.DeliveryCount = 1, 2, 0, 1
			part.StateBatches = append(part.StateBatches, b)
			t.Partitions = append(t.Partitions, part)
			req.Topics = append(req.Topics, t)
			return req
		}),
		stateCase(kmsg.DeleteShareGroupState, true, func(p *aclPair, v int16, group string) kmsg.Request {
			req := kmsg.NewPtrDeleteShareGroupStateRequest()
			req.SetVersion(v)
			req.GroupID = group
			t := kmsg.NewDeleteShareGroupStateRequestTopic()
			t.TopicID = p.alice.topicID(dataTopic)
			t.Partitions = append(t.Partitions, kmsg.NewDeleteShareGroupStateRequestTopicPartition())
			req.Topics = append(req.Topics, t)
			return req
		}),
		stateCase(kmsg.ReadShareGroupStateSummary, true, func(p *aclPair, v int16, group string) kmsg.Request {
			req := kmsg.NewPtrReadShareGroupStateSummaryRequest()
			req.SetVersion(v)
			req.GroupID = group
			t := kmsg.NewReadShareGroupStateSummaryRequestTopic()
			t.TopicID = p.alice.topicID(dataTopic)
			t.Partitions = append(t.Partitions, kmsg.NewReadShareGroupStateSummaryRequestTopicPartition())
			req.Topics = append(req.Topics, t)
			return req
		}),
	)
}

// shareMemberID is the member shareJoinRequest joins with.
const shareMemberID = "acl-share-member"

// awaitShareAssignment joins shareMemberID to group (as the super user) and heartbeats until it
// is assigned partitions: Kafka assigns them only once their share state is initialized, and a
// ShareFetch before that would be answered differently for a reason that is not authorization.
func awaitShareAssignment(admin *session, group string) {
	req := shareJoinRequest(1, group)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		resp, _ := admin.send(req).(*kmsg.ShareGroupHeartbeatResponse)
		if resp == nil || resp.ErrorCode != 0 {
			return
		}
		if resp.Assignment != nil && len(resp.Assignment.TopicPartitions) > 0 {
			return
		}
		req.MemberEpoch, req.SubscribedTopicNames = resp.MemberEpoch, nil
		time.Sleep(100 * time.Millisecond) // polling Kafka's initialization, with a deadline
	}
}

// shareFetchRequest opens shareMemberID's share session in group with a fetch of dataTopic's
// partition 0. A new share group starts at the latest offset (share.auto.offset.reset), so the
// answer carries no records, and a short wait keeps the case quick.
func shareFetchRequest(s *session, v int16, group string) *kmsg.ShareFetchRequest {
	req := kmsg.NewPtrShareFetchRequest()
	req.SetVersion(v)
	req.GroupID, req.MemberID = kmsg.StringPtr(group), kmsg.StringPtr(shareMemberID)
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 50, 1, 1<<20
	req.MaxRecords, req.BatchSize = 100, 100
	t := kmsg.NewShareFetchRequestTopic()
	t.TopicID = s.topicID(dataTopic)
	part := kmsg.NewShareFetchRequestTopicPartition()
	part.PartitionMaxBytes = 1 << 20
	t.Partitions = append(t.Partitions, part)
	req.Topics = append(req.Topics, t)
	return req
}

// shareStateCoordinator asks (as the super user) for the share coordinator of group's state of
// dataTopic's partition 0, which makes both brokers create __share_group_state.
func shareStateCoordinator(admin *session, group string) {
	id := admin.topicID(dataTopic)
	key := fmt.Sprintf("%s:%s:0", group, base64.RawURLEncoding.EncodeToString(id[:]))
	admin.send(findCoordinatorRequest(6, 2, key))
}

func initializeShareStateRequest(s *session, v int16, group string) *kmsg.InitializeShareGroupStateRequest {
	req := kmsg.NewPtrInitializeShareGroupStateRequest()
	req.SetVersion(v)
	req.GroupID = group
	t := kmsg.NewInitializeShareGroupStateRequestTopic()
	t.TopicID = s.topicID(dataTopic)
	part := kmsg.NewInitializeShareGroupStateRequestTopicPartition()
	part.StateEpoch, part.StartOffset = 0, 0
	t.Partitions = append(t.Partitions, part)
	req.Topics = append(req.Topics, t)
	return req
}
