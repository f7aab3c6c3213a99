package main

import "github.com/twmb/franz-go/pkg/kmsg"

// The share group offsets admin APIs (KIP-932's kafka-share-groups): DescribeShareGroupOffsets
// needs DESCRIBE on the group and on each topic, AlterShareGroupOffsets READ on the group and
// on each topic, DeleteShareGroupOffsets DELETE on the group and READ on each topic. Each case's
// group is a fresh share group whose member was assigned dataTopic's partitions (so its share
// state is initialized) and, for the two that change the group, has left, since Kafka alters and
// deletes only the offsets of an empty group.
func init() { registerACL(shareAdminACLCases()...) }

func shareAdminACLCases() []aclCase {
	describe := func(name, prefix string, allow []acl) aclCase {
		return aclCase{key: kmsg.DescribeShareGroupOffsets, name: name, allow: allow,
			run: func(p *aclPair, v int16, phase string) {
				group := fresh(prefix, phase, v)
				awaitShareAssignment(p.admin, group)
				req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
				req.SetVersion(v)
				g := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
				g.GroupID = group
				t := kmsg.NewDescribeShareGroupOffsetsRequestGroupTopic()
				t.Topic, t.Partitions = dataTopic, []int32{0}
				g.Topics = append(g.Topics, t)
				req.Groups = append(req.Groups, g)
				p.alice.compare("1", req)
			}}
	}
	alter := func(name, prefix string, allow []acl) aclCase {
		return aclCase{key: kmsg.AlterShareGroupOffsets, name: name, allow: allow,
			run: func(p *aclPair, v int16, phase string) {
				group := fresh(prefix, phase, v)
				awaitShareAssignment(p.admin, group)
				leaveShareGroup(p.admin, group)
				req := kmsg.NewPtrAlterShareGroupOffsetsRequest()
				req.SetVersion(v)
				req.GroupID = group
				t := kmsg.NewAlterShareGroupOffsetsRequestTopic()
				t.Topic = dataTopic
				part := kmsg.NewAlterShareGroupOffsetsRequestTopicPartition()
				part.Partition, part.StartOffset = 0, 0
				t.Partitions = append(t.Partitions, part)
				req.Topics = append(req.Topics, t)
				p.alice.compare("1", req)
			}}
	}
	deleteOffsets := func(name, prefix string, allow []acl) aclCase {
		return aclCase{key: kmsg.DeleteShareGroupOffsets, name: name, allow: allow,
			run: func(p *aclPair, v int16, phase string) {
				group := fresh(prefix, phase, v)
				awaitShareAssignment(p.admin, group)
				leaveShareGroup(p.admin, group)
				req := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
				req.SetVersion(v)
				req.GroupID = group
				t := kmsg.NewDeleteShareGroupOffsetsRequestTopic()
				t.Topic = dataTopic
				req.Topics = append(req.Topics, t)
				p.alice.compare("1", req)
			}}
	}
	return []aclCase{
		describe("describe", "g-dsgo-", []acl{groupsACL("g-dsgo-", opDescribe), topicACL(dataTopic, opDescribe)}),
		describe("topic-undescribable", "g-dsgot-", []acl{groupsACL("g-dsgot-", opDescribe)}),
		alter("read", "g-asgo-", []acl{groupsACL("g-asgo-", opRead), topicACL(dataTopic, opRead)}),
		alter("topic-unreadable", "g-asgot-", []acl{groupsACL("g-asgot-", opRead)}),
		deleteOffsets("delete", "g-dlsgo-", []acl{groupsACL("g-dlsgo-", opDelete), topicACL(dataTopic, opRead)}),
		deleteOffsets("topic-unreadable", "g-dlsgot-", []acl{groupsACL("g-dlsgot-", opDelete)}),
	}
}

// leaveShareGroup makes shareMemberID leave group (as the super user), leaving it empty.
func leaveShareGroup(admin *session, group string) {
	req := shareJoinRequest(1, group)
	req.MemberEpoch, req.SubscribedTopicNames = -1, nil
	admin.send(req)
}
