package main

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Scenarios of the classic group APIs, committed offsets and KIP-848 consumer groups.
func init() {
	register(kmsg.JoinGroup,
		scenario{name: "happy", run: func(s *session, v int16) {
			group := fmt.Sprintf("join-v%d", v)
			resp, _ := s.compare("1", joinGroupRequest(v, group, "", "consumer")).(*kmsg.JoinGroupResponse)
			if resp != nil && resp.ErrorCode == 79 { // MEMBER_ID_REQUIRED
				s.compare("rejoin", joinGroupRequest(v, group, resp.MemberID, "consumer"))
			}
		}},
		scenario{name: "unknown-member", run: func(s *session, v int16) {
			s.compare("1", joinGroupRequest(v, fmt.Sprintf("join-unknown-v%d", v), "nobody", "consumer"))
		}},
		scenario{name: "inconsistent-protocol", run: func(s *session, v int16) {
			group := fmt.Sprintf("join-protocol-v%d", v)
			joinedMember(s, group)
			s.compare("1", joinGroupRequest(v, group, "", "connect"))
		}},
		scenario{name: "bad-session-timeout", run: func(s *session, v int16) {
			req := joinGroupRequest(v, fmt.Sprintf("join-timeout-v%d", v), "", "consumer")
			req.SessionTimeoutMillis = 1
			s.compare("1", req)
		}},
	)
	register(kmsg.SyncGroup,
		scenario{name: "happy", run: func(s *session, v int16) {
			group := fmt.Sprintf("sync-v%d", v)
			member, generation := joinOnly(s, group)
			s.compare("1", syncGroupRequest(v, group, member, generation))
		}},
		scenario{name: "unknown-member", run: func(s *session, v int16) {
			group := fmt.Sprintf("sync-unknown-v%d", v)
			_, generation := joinOnly(s, group)
			s.compare("1", syncGroupRequest(v, group, "nobody", generation))
		}},
		scenario{name: "illegal-generation", run: func(s *session, v int16) {
			group := fmt.Sprintf("sync-gen-v%d", v)
			member, generation := joinOnly(s, group)
			s.compare("1", syncGroupRequest(v, group, member, generation+5))
		}},
	)
	register(kmsg.Heartbeat,
		heartbeatScenario("happy", 0, true),
		heartbeatScenario("unknown-member", 0, false),
		heartbeatScenario("illegal-generation", 3, true),
		scenario{name: "unknown-group", run: func(s *session, v int16) {
			s.compare("1", heartbeatRequest(v, "no-such-group", "nobody", 1))
		}},
	)
	register(kmsg.LeaveGroup,
		scenario{name: "happy", run: func(s *session, v int16) {
			group := fmt.Sprintf("leave-v%d", v)
			member, _ := joinedMember(s, group)
			s.compare("1", leaveGroupRequest(v, group, member))
		}},
		scenario{name: "unknown-member", run: func(s *session, v int16) {
			group := fmt.Sprintf("leave-unknown-v%d", v)
			joinedMember(s, group)
			s.compare("1", leaveGroupRequest(v, group, "nobody"))
		}},
		scenario{name: "unknown-group", run: func(s *session, v int16) {
			s.compare("1", leaveGroupRequest(v, "no-such-group", "nobody"))
		}},
	)
	register(kmsg.DescribeGroups,
		scenario{name: "stable-and-unknown", run: func(s *session, v int16) {
			group := fmt.Sprintf("describe-v%d", v)
			joinedMember(s, group)
			req := kmsg.NewPtrDescribeGroupsRequest()
			req.SetVersion(v)
			req.Groups = []string{group, "no-such-group"}
			req.IncludeAuthorizedOperations = v >= 3
			s.compare("1", req)
		}},
	)
	register(kmsg.ListGroups,
		scenario{name: "all", run: func(s *session, v int16) {
			req := kmsg.NewPtrListGroupsRequest()
			req.SetVersion(v)
			s.compare("1", req)
		}},
		scenario{name: "stable-filter", minVersion: 4, run: func(s *session, v int16) {
			req := kmsg.NewPtrListGroupsRequest()
			req.SetVersion(v)
			req.StatesFilter = []string{"Stable"}
			s.compare("1", req)
		}},
		scenario{name: "type-filter", minVersion: 5, run: func(s *session, v int16) {
			req := kmsg.NewPtrListGroupsRequest()
			req.SetVersion(v)
			req.TypesFilter = []string{"consumer"}
			s.compare("1", req)
		}},
	)
	register(kmsg.OffsetCommit,
		scenario{name: "simple", run: func(s *session, v int16) {
			s.compare("1", offsetCommitRequest(s, v, fmt.Sprintf("commit-v%d", v), dataTopic, 0, 1))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", offsetCommitRequest(s, v, fmt.Sprintf("commit-unknown-v%d", v), "no-such-topic", 0, 1))
		}},
		scenario{name: "bad-partition", run: func(s *session, v int16) {
			s.compare("1", offsetCommitRequest(s, v, fmt.Sprintf("commit-partition-v%d", v), dataTopic, 99, 1))
		}},
		scenario{name: "member-of-empty-group", run: func(s *session, v int16) {
			req := offsetCommitRequest(s, v, fmt.Sprintf("commit-member-v%d", v), dataTopic, 0, 1)
			req.Generation, req.MemberID = 3, "nobody"
			s.compare("1", req)
		}},
		scenario{name: "member-of-stable-group", run: func(s *session, v int16) {
			group := fmt.Sprintf("commit-stable-v%d", v)
			member, generation := joinedMember(s, group)
			req := offsetCommitRequest(s, v, group, dataTopic, 0, 2)
			req.Generation, req.MemberID = generation, member
			s.compare("1", req)
			req.Generation++
			s.compare("illegal-generation", req)
		}},
	)
	register(kmsg.OffsetFetch,
		scenario{name: "committed", run: func(s *session, v int16) {
			group := fmt.Sprintf("fetch-v%d", v)
			s.send(offsetCommitRequest(s, 9, group, dataTopic, 0, 2))
			s.compare("1", offsetFetchRequest(s, v, group, dataTopic, 0, 1))
		}},
		scenario{name: "all-partitions", minVersion: 2, run: func(s *session, v int16) {
			group := fmt.Sprintf("fetch-all-v%d", v)
			s.send(offsetCommitRequest(s, 9, group, dataTopic, 1, 1))
			s.compare("1", offsetFetchRequest(s, v, group, ""))
		}},
		scenario{name: "unknown-group", run: func(s *session, v int16) {
			s.compare("1", offsetFetchRequest(s, v, "no-such-group", dataTopic, 0))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", offsetFetchRequest(s, v, "no-such-group", "no-such-topic", 0))
		}},
	)
	register(kmsg.FindCoordinator,
		findCoordinatorScenario("group", 0, 0, "some-group"),
		findCoordinatorScenario("transaction", 1, 1, "some-txn"),
		findCoordinatorScenario("bad-key-type", 1, 7, "some-key"),
		scenario{name: "batched", minVersion: 4, run: func(s *session, v int16) {
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.SetVersion(v)
			req.CoordinatorKeys = []string{"group-a", "group-b"}
			s.compare("1", req)
		}},
	)
	register(kmsg.DeleteGroups,
		scenario{name: "empty-group", run: func(s *session, v int16) {
			group := fmt.Sprintf("delete-group-v%d", v)
			s.send(offsetCommitRequest(s, 9, group, dataTopic, 0, 1))
			s.compare("1", deleteGroupsRequest(v, group, "no-such-group"))
		}},
		scenario{name: "non-empty-group", run: func(s *session, v int16) {
			group := fmt.Sprintf("delete-live-v%d", v)
			joinedMember(s, group)
			s.compare("1", deleteGroupsRequest(v, group))
		}},
	)
	register(kmsg.OffsetDelete,
		scenario{name: "empty-group", run: func(s *session, v int16) {
			group := fmt.Sprintf("offset-delete-v%d", v)
			s.send(offsetCommitRequest(s, 9, group, dataTopic, 0, 1))
			s.compare("1", offsetDeleteRequest(v, group, dataTopic, 0))
			s.compare("after", offsetFetchRequest(s, 8, group, dataTopic, 0))
		}},
		scenario{name: "unknown-group", run: func(s *session, v int16) {
			s.compare("1", offsetDeleteRequest(v, "no-such-group", dataTopic, 0))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			group := fmt.Sprintf("offset-delete-topic-v%d", v)
			s.send(offsetCommitRequest(s, 9, group, dataTopic, 0, 1))
			s.compare("1", offsetDeleteRequest(v, group, "no-such-topic", 0))
		}},
	)
	register(kmsg.ConsumerGroupHeartbeat,
		scenario{name: "join-and-leave", run: func(s *session, v int16) {
			group := fmt.Sprintf("kip848-v%d", v)
			member := fmt.Sprintf("member-%d-aaaaaaaaaaaaaaa", v)
			if v == 0 {
				member = "" // v0: the coordinator picks the member id
			}
			req := consumerHeartbeatRequest(v, group, member, 0)
			req.SubscribedTopicNames = []string{dataTopic}
			req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
			req.RebalanceTimeoutMillis = 30000
			resp, _ := s.compare("1", req).(*kmsg.ConsumerGroupHeartbeatResponse)
			if resp == nil || resp.ErrorCode != 0 {
				return
			}
			if resp.MemberID != nil {
				member = *resp.MemberID
			}
			s.compare("heartbeat", consumerHeartbeatRequest(v, group, member, resp.MemberEpoch))
			s.compare("leave", consumerHeartbeatRequest(v, group, member, -1))
		}},
		scenario{name: "unknown-member", run: func(s *session, v int16) {
			s.compare("1", consumerHeartbeatRequest(v, fmt.Sprintf("kip848-unknown-v%d", v), "nobody-bbbbbbbbbbbbbbbbb", 3))
		}},
		scenario{name: "join-null-owned-partitions", run: func(s *session, v int16) {
			req := consumerHeartbeatRequest(v, fmt.Sprintf("kip848-null-owned-v%d", v), "member-eeeeeeeeeeeeeeeeeee", 0)
			req.SubscribedTopicNames, req.RebalanceTimeoutMillis = []string{dataTopic}, 30000
			s.compare("1", req)
		}},
		scenario{name: "join-without-subscription", run: func(s *session, v int16) {
			s.compare("1", consumerHeartbeatRequest(v, fmt.Sprintf("kip848-nosub-v%d", v), "member-ccccccccccccccccc", 0))
		}},
	)
	register(kmsg.ConsumerGroupDescribe,
		scenario{name: "member-and-unknown", run: func(s *session, v int16) {
			group := fmt.Sprintf("kip848-describe-v%d", v)
			hb := consumerHeartbeatRequest(1, group, "member-ddddddddddddddddddd", 0)
			hb.SubscribedTopicNames = []string{dataTopic}
			hb.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
			hb.RebalanceTimeoutMillis = 30000
			s.send(hb)
			req := kmsg.NewPtrConsumerGroupDescribeRequest()
			req.SetVersion(v)
			req.Groups = []string{group, "no-such-group"}
			req.IncludeAuthorizedOperations = true
			s.compare("1", req)
		}},
	)
}

func joinGroupRequest(v int16, group, member, protocolType string) *kmsg.JoinGroupRequest {
	req := kmsg.NewPtrJoinGroupRequest()
	req.SetVersion(v)
	req.Group, req.MemberID, req.ProtocolType = group, member, protocolType
	req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 30000, 30000
	p := kmsg.NewJoinGroupRequestProtocol()
	p.Name, p.Metadata = "range", []byte{0, 1, 0, 0, 0, 0}
	req.Protocols = append(req.Protocols, p)
	return req
}

// joinOnly joins group as its only member (JoinGroup v9, twice for the member id) and returns
// the member id and generation; the member has not synced.
func joinOnly(s *session, group string) (string, int32) {
	resp, _ := s.send(joinGroupRequest(9, group, "", "consumer")).(*kmsg.JoinGroupResponse)
	if resp == nil {
		return "", -1
	}
	if resp.ErrorCode == 79 {
		if resp, _ = s.send(joinGroupRequest(9, group, resp.MemberID, "consumer")).(*kmsg.JoinGroupResponse); resp == nil {
			return "", -1
		}
	}
	return resp.MemberID, resp.Generation
}

// joinedMember makes a stable group with one synced member.
func joinedMember(s *session, group string) (string, int32) {
	member, generation := joinOnly(s, group)
	s.send(syncGroupRequest(5, group, member, generation))
	return member, generation
}

func syncGroupRequest(v int16, group, member string, generation int32) *kmsg.SyncGroupRequest {
	req := kmsg.NewPtrSyncGroupRequest()
	req.SetVersion(v)
	req.Group, req.MemberID, req.Generation = group, member, generation
	req.ProtocolType, req.Protocol = kmsg.StringPtr("consumer"), kmsg.StringPtr("range")
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = member, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	req.GroupAssignment = append(req.GroupAssignment, a)
	return req
}

func heartbeatRequest(v int16, group, member string, generation int32) *kmsg.HeartbeatRequest {
	req := kmsg.NewPtrHeartbeatRequest()
	req.SetVersion(v)
	req.Group, req.MemberID, req.Generation = group, member, generation
	return req
}

func heartbeatScenario(name string, generationOffset int32, knownMember bool) scenario {
	return scenario{name: name, run: func(s *session, v int16) {
		group := fmt.Sprintf("heartbeat-%s-v%d", name, v)
		member, generation := joinedMember(s, group)
		if !knownMember {
			member = "nobody"
		}
		s.compare("1", heartbeatRequest(v, group, member, generation+generationOffset))
	}}
}

func leaveGroupRequest(v int16, group, member string) *kmsg.LeaveGroupRequest {
	req := kmsg.NewPtrLeaveGroupRequest()
	req.SetVersion(v)
	req.Group = group
	if v < 3 {
		req.MemberID = member
	} else {
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = member
		req.Members = append(req.Members, m)
	}
	return req
}

func offsetCommitRequest(s *session, v int16, group, topic string, partition int32, offset int64) *kmsg.OffsetCommitRequest {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.SetVersion(v)
	req.Group, req.Generation, req.RetentionTimeMillis = group, -1, -1
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = topic
	if v >= 10 {
		t.TopicID = s.topicID(topic)
		if topic != dataTopic {
			t.TopicID = [16]byte{4}
		}
	}
	p := kmsg.NewOffsetCommitRequestTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch = partition, offset, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

// offsetFetchRequest asks for topic's partitions, or for every committed partition when topic is
// empty; from v8 in the batched Groups form.
func offsetFetchRequest(s *session, v int16, group, topic string, partitions ...int32) *kmsg.OffsetFetchRequest {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.SetVersion(v)
	if v < 8 {
		req.Group = group
		if topic != "" {
			t := kmsg.NewOffsetFetchRequestTopic()
			t.Topic, t.Partitions = topic, partitions
			req.Topics = append(req.Topics, t)
		}
		return req
	}
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group, g.MemberEpoch = group, -1
	if topic != "" {
		t := kmsg.NewOffsetFetchRequestGroupTopic()
		t.Topic, t.Partitions = topic, partitions
		if v >= 10 {
			t.TopicID = s.topicID(topic)
			if topic != dataTopic {
				t.TopicID = [16]byte{4}
			}
		}
		g.Topics = append(g.Topics, t)
	}
	req.Groups = append(req.Groups, g)
	return req
}

func findCoordinatorScenario(name string, minVersion int16, keyType int8, key string) scenario {
	return scenario{name: name, minVersion: minVersion, run: func(s *session, v int16) {
		s.compare("1", findCoordinatorRequest(v, keyType, key))
	}}
}

func deleteGroupsRequest(v int16, groups ...string) *kmsg.DeleteGroupsRequest {
	req := kmsg.NewPtrDeleteGroupsRequest()
	req.SetVersion(v)
	req.Groups = groups
	return req
}

func offsetDeleteRequest(v int16, group, topic string, partition int32) *kmsg.OffsetDeleteRequest {
	req := kmsg.NewPtrOffsetDeleteRequest()
	req.SetVersion(v)
	req.Group = group
	t := kmsg.NewOffsetDeleteRequestTopic()
	t.Topic = topic
	p := kmsg.NewOffsetDeleteRequestTopicPartition()
	p.Partition = partition
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func consumerHeartbeatRequest(v int16, group, member string, epoch int32) *kmsg.ConsumerGroupHeartbeatRequest {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.SetVersion(v)
	req.Group, req.MemberID, req.MemberEpoch = group, member, epoch
	req.RebalanceTimeoutMillis = -1
	return req
}
