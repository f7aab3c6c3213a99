package main

import (
	"crypto/sha256"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The ACL cases, one or more per API, with the ACLs Kafka 4.4's "Operations and Resources on
// Protocols" table (and KafkaApis) requires. Groups, transactional ids and topics that a request
// changes are fresh per phase and version and named in the ACLs by prefix.
const (
	opRead            = kmsg.ACLOperationRead
	opWrite           = kmsg.ACLOperationWrite
	opCreate          = kmsg.ACLOperationCreate
	opDelete          = kmsg.ACLOperationDelete
	opAlter           = kmsg.ACLOperationAlter
	opDescribe        = kmsg.ACLOperationDescribe
	opClusterAction   = kmsg.ACLOperationClusterAction
	opDescribeConfigs = kmsg.ACLOperationDescribeConfigs
	opAlterConfigs    = kmsg.ACLOperationAlterConfigs
	opIdempotentWrite = kmsg.ACLOperationIdempotentWrite
	opCreateTokens    = kmsg.ACLOperationCreateTokens
)

func init() {
	registerACL(dataACLCases()...)
	registerACL(groupACLCases()...)
	registerACL(txnACLCases()...)
	registerACL(adminACLCases()...)
}

func dataACLCases() []aclCase {
	return []aclCase{
		{key: kmsg.Produce, name: "write", allow: []acl{topicACL(dataTopic, opWrite)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", produceRequest(v, dataTopic, p.alice.topicID(dataTopic), 2, plainBatch(recordsTime, "acl"), 1))
			}},
		{key: kmsg.Produce, name: "transactional", minVersion: 3,
			allow: []acl{txnsACL("tx-produce-", opWrite), topicACL(dataTopic, opWrite)},
			run: func(p *aclPair, v int16, phase string) {
				id := fresh("tx-produce-", phase, v)
				pid, epoch := initTransactional(p.admin, id)
				p.admin.send(addPartitionsRequest(3, id, pid, epoch, dataTopic, 2))
				batch := recordBatch(recordsTime, pid, epoch, 0, 0x10, "txn")
				req := produceRequest(v, dataTopic, p.alice.topicID(dataTopic), 2, batch, -1)
				req.TransactionID = &id
				p.alice.compare("1", req)
				p.admin.send(endTxnRequest(3, id, pid, epoch, false))
				awaitTransactionsDone(p.admin, dataTopic, 2)
			}},
		{key: kmsg.Fetch, name: "read", allow: []acl{topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", fetchRequest(p.alice, v, dataTopic, 0, 0))
			}},
		{key: kmsg.Fetch, name: "follower", allow: []acl{clusterACL(opClusterAction)},
			run: func(p *aclPair, v int16, _ string) {
				req := fetchRequest(p.alice, v, dataTopic, 0, 0)
				req.ReplicaID = 1
				if v >= 15 {
					req.ReplicaID = -1
					req.ReplicaState = kmsg.FetchRequestReplicaState{ID: 1, Epoch: -1}
				}
				p.alice.compare("1", req)
			}},
		{key: kmsg.ListOffsets, name: "describe", allow: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", listOffsetsRequest(p.alice, v, dataTopic, 0, -1))
			}},
		{key: kmsg.Metadata, name: "named", allow: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				req := metadataRequest(v, false, dataTopic)
				req.IncludeTopicAuthorizedOperations = v >= 8
				req.IncludeClusterAuthorizedOperations = v >= 8 && v <= 10
				p.alice.compare("1", req)
			}},
		{key: kmsg.Metadata, name: "all", allow: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				req := metadataRequest(v, false)
				req.IncludeTopicAuthorizedOperations = v >= 8
				p.alice.compare("1", req)
			}},
		{key: kmsg.Metadata, name: "write-implies-describe", allow: []acl{topicACL(dataTopic, opWrite)},
			run: func(p *aclPair, v int16, _ string) {
				req := metadataRequest(v, false, dataTopic)
				req.IncludeTopicAuthorizedOperations = v >= 8
				p.alice.compare("1", req)
			}},
		{key: kmsg.Metadata, name: "auto-create", minVersion: 4,
			allow: []acl{topicsACL("auto-", opDescribe), topicsACL("auto-", opCreate)},
			deny:  []acl{topicsACL("auto-", opCreate)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", metadataRequest(v, true, fresh("auto-", phase, v)))
			}},
		{key: kmsg.Metadata, name: "auto-create-cluster", minVersion: 4,
			allow: []acl{topicsACL("autoc-", opDescribe), clusterACL(opCreate)},
			deny:  []acl{clusterACL(opCreate)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", metadataRequest(v, true, fresh("autoc-", phase, v)))
			}},
		{key: kmsg.OffsetForLeaderEpoch, name: "describe", allow: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", offsetForLeaderEpochRequest(v, dataTopic, 0, 0))
			}},
		{key: kmsg.DeleteRecords, name: "delete", allow: []acl{topicACL(dataTopic, opDelete)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", deleteRecordsRequest(v, dataTopic, 1, 0))
			}},
		{key: kmsg.DescribeProducers, name: "read", allow: []acl{topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, _ string) {
				req := kmsg.NewPtrDescribeProducersRequest()
				req.SetVersion(v)
				t := kmsg.NewDescribeProducersRequestTopic()
				t.Topic, t.Partitions = dataTopic, []int32{0}
				req.Topics = append(req.Topics, t)
				p.alice.compare("1", req)
			}},
		{key: kmsg.DescribeTopicPartitions, name: "describe", allow: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", describeTopicPartitionsRequest(v, nil, dataTopic))
			}},
		{key: kmsg.DescribeTopicPartitions, name: "all", allow: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", describeTopicPartitionsRequest(v, nil))
			}},
	}
}

func groupACLCases() []aclCase {
	return []aclCase{
		{key: kmsg.OffsetCommit, name: "read", allow: []acl{groupACL("g-commit", opRead), topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", offsetCommitRequest(p.alice, v, "g-commit", dataTopic, 0, 1))
			}},
		{key: kmsg.OffsetCommit, name: "topic-denied", allow: []acl{groupACL("g-commit", opRead), topicACL(dataTopic, opRead)},
			deny: []acl{topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", offsetCommitRequest(p.alice, v, "g-commit", dataTopic, 0, 1))
			}},
		{key: kmsg.OffsetFetch, name: "describe", allow: []acl{groupACL("g-fetch", opDescribe), topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.admin.send(offsetCommitRequest(p.admin, 8, "g-fetch", dataTopic, 0, 2))
				p.alice.compare("1", offsetFetchRequest(p.alice, v, "g-fetch", dataTopic, 0))
			}},
		{key: kmsg.OffsetFetch, name: "all-topics", minVersion: 2, allow: []acl{groupACL("g-fetch", opDescribe), topicACL(dataTopic, opDescribe)},
			deny: []acl{topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.admin.send(offsetCommitRequest(p.admin, 8, "g-fetch", dataTopic, 0, 2))
				p.alice.compare("1", offsetFetchRequest(p.alice, v, "g-fetch", ""))
			}},
		{key: kmsg.FindCoordinator, name: "group", allow: []acl{groupACL("g-find", opDescribe)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", findCoordinatorRequest(v, 0, "g-find")) }},
		{key: kmsg.FindCoordinator, name: "transaction", minVersion: 1, allow: []acl{txnACL("tx-find", opDescribe)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", findCoordinatorRequest(v, 1, "tx-find")) }},
		{key: kmsg.JoinGroup, name: "read", allow: []acl{groupsACL("g-join-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				req := joinGroupRequest(v, fresh("g-join-", phase, v), "", "consumer")
				if v == 0 {
					req.SessionTimeoutMillis = 30000
				}
				p.alice.compare("1", req)
			}},
		{key: kmsg.SyncGroup, name: "read", allow: []acl{groupsACL("g-sync-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-sync-", phase, v)
				member, generation := joinOnly(p.admin, group)
				p.alice.compare("1", syncGroupRequest(v, group, member, generation))
			}},
		{key: kmsg.Heartbeat, name: "read", allow: []acl{groupsACL("g-hb-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-hb-", phase, v)
				member, generation := joinedMember(p.admin, group)
				p.alice.compare("1", heartbeatRequest(v, group, member, generation))
			}},
		{key: kmsg.LeaveGroup, name: "read", allow: []acl{groupsACL("g-leave-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-leave-", phase, v)
				member, _ := joinedMember(p.admin, group)
				p.alice.compare("1", leaveGroupRequest(v, group, member))
			}},
		{key: kmsg.DescribeGroups, name: "describe", allow: []acl{groupACL("g-describe", opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				req := kmsg.NewPtrDescribeGroupsRequest()
				req.SetVersion(v)
				req.Groups, req.IncludeAuthorizedOperations = []string{"g-describe"}, v >= 3
				p.alice.compare("1", req)
			}},
		{key: kmsg.ListGroups, name: "cluster", allow: []acl{clusterACL(opDescribe)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", listGroupsRequest(v)) }},
		{key: kmsg.ListGroups, name: "one-group", allow: []acl{groupACL("g-describe", opDescribe)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", listGroupsRequest(v)) }},
		{key: kmsg.DeleteGroups, name: "delete", allow: []acl{groupsACL("g-del-", opDelete)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-del-", phase, v)
				p.admin.send(offsetCommitRequest(p.admin, 8, group, dataTopic, 0, 1))
				p.alice.compare("1", deleteGroupsRequest(v, group))
			}},
		{key: kmsg.OffsetDelete, name: "delete", allow: []acl{groupsACL("g-od-", opDelete), topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-od-", phase, v)
				p.admin.send(offsetCommitRequest(p.admin, 8, group, dataTopic, 0, 1))
				p.alice.compare("1", offsetDeleteRequest(v, group, dataTopic, 0))
			}},
		{key: kmsg.OffsetDelete, name: "topic-denied", allow: []acl{groupsACL("g-odt-", opDelete), topicACL(dataTopic, opRead)},
			deny: []acl{topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, phase string) {
				group := fresh("g-odt-", phase, v)
				p.admin.send(offsetCommitRequest(p.admin, 8, group, dataTopic, 0, 1))
				p.alice.compare("1", offsetDeleteRequest(v, group, dataTopic, 0))
			}},
		{key: kmsg.ConsumerGroupHeartbeat, name: "join", allow: []acl{groupsACL("g-cgh-", opRead), topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", consumerJoinRequest(v, fresh("g-cgh-", phase, v)))
			}},
		{key: kmsg.ConsumerGroupHeartbeat, name: "topic-undescribable", allow: []acl{groupsACL("g-cght-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", consumerJoinRequest(v, fresh("g-cght-", phase, v)))
			}},
		{key: kmsg.ConsumerGroupDescribe, name: "describe", allow: []acl{groupACL("g-cgd", opDescribe), topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", consumerDescribeRequest(p.admin, v, "g-cgd"))
			}},
		{key: kmsg.ConsumerGroupDescribe, name: "topic-undescribable", allow: []acl{groupACL("g-cgd", opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", consumerDescribeRequest(p.admin, v, "g-cgd"))
			}},
		{key: kmsg.ShareGroupHeartbeat, name: "join", allow: []acl{groupsACL("g-sgh-", opRead), topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", shareJoinRequest(v, fresh("g-sgh-", phase, v)))
			}},
		{key: kmsg.ShareGroupHeartbeat, name: "topic-undescribable", allow: []acl{groupsACL("g-sght-", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", shareJoinRequest(v, fresh("g-sght-", phase, v)))
			}},
		{key: kmsg.ShareGroupDescribe, name: "describe", allow: []acl{groupACL("g-sgd", opDescribe), topicACL(dataTopic, opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", shareDescribeRequest(p.admin, v, "g-sgd"))
			}},
		{key: kmsg.ShareGroupDescribe, name: "topic-undescribable", allow: []acl{groupACL("g-sgd", opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", shareDescribeRequest(p.admin, v, "g-sgd"))
			}},
	}
}

// shareJoinRequest is a share group member's first heartbeat, subscribed to dataTopic.
func shareJoinRequest(v int16, group string) *kmsg.ShareGroupHeartbeatRequest {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.SetVersion(v)
	req.GroupID, req.MemberID, req.SubscribedTopicNames = group, shareMemberID, []string{dataTopic}
	return req
}

// shareDescribeRequest makes group a share group subscribed to dataTopic (as the super user,
// once) whose member is assigned partitions, and asks for it with its authorized operations.
func shareDescribeRequest(admin *session, v int16, group string) *kmsg.ShareGroupDescribeRequest {
	if _, ok := admin.topicIDs["share-group:"+group]; !ok {
		awaitShareAssignment(admin, group)
		admin.topicIDs["share-group:"+group] = [16]byte{1}
	}
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.SetVersion(v)
	req.GroupIDs, req.IncludeAuthorizedOperations = []string{group}, true
	return req
}

func findCoordinatorRequest(v int16, keyType int8, key string) *kmsg.FindCoordinatorRequest {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.SetVersion(v)
	req.CoordinatorType = keyType
	if v >= 4 {
		req.CoordinatorKeys = []string{key}
	} else {
		req.CoordinatorKey = key
	}
	return req
}

func listGroupsRequest(v int16) *kmsg.ListGroupsRequest {
	req := kmsg.NewPtrListGroupsRequest()
	req.SetVersion(v)
	return req
}

// consumerJoinRequest is a KIP-848 member's first heartbeat, subscribed to dataTopic.
func consumerJoinRequest(v int16, group string) *kmsg.ConsumerGroupHeartbeatRequest {
	req := consumerHeartbeatRequest(v, group, "", 0)
	if v >= 1 {
		req.MemberID = "acl-member-" + group
	}
	req.RebalanceTimeoutMillis = 30000
	req.SubscribedTopicNames = []string{dataTopic}
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	return req
}

// consumerDescribeRequest makes group a consumer group subscribed to dataTopic (as the super
// user, once) and asks for it with its authorized operations.
func consumerDescribeRequest(admin *session, v int16, group string) *kmsg.ConsumerGroupDescribeRequest {
	if _, ok := admin.topicIDs["group:"+group]; !ok {
		admin.send(consumerJoinRequest(1, group))
		admin.topicIDs["group:"+group] = [16]byte{1}
	}
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.SetVersion(v)
	req.Groups, req.IncludeAuthorizedOperations = []string{group}, true
	return req
}

func txnACLCases() []aclCase {
	return []aclCase{
		{key: kmsg.InitProducerID, name: "transactional", allow: []acl{txnACL("tx-init", opWrite)},
			run: func(p *aclPair, v int16, _ string) {
				id := "tx-init"
				p.alice.compare("1", initProducerIDRequest(v, &id))
			}},
		{key: kmsg.InitProducerID, name: "idempotent", allow: []acl{clusterACL(opIdempotentWrite)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", initProducerIDRequest(v, nil)) }},
		{key: kmsg.InitProducerID, name: "idempotent-by-topic-write", allow: []acl{topicACL(dataTopic, opWrite)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", initProducerIDRequest(v, nil)) }},
		{key: kmsg.AddPartitionsToTxn, name: "write", allow: []acl{txnsACL("tx-apt-", opWrite), topicACL(dataTopic, opWrite)},
			run: func(p *aclPair, v int16, phase string) {
				id := fresh("tx-apt-", phase, v)
				pid, epoch := initTransactional(p.admin, id)
				p.alice.compare("1", addPartitionsRequest(v, id, pid, epoch, dataTopic, 2))
				p.admin.send(endTxnRequest(3, id, pid, epoch, false))
			}},
		{key: kmsg.AddPartitionsToTxn, name: "topic-denied", allow: []acl{txnsACL("tx-aptd-", opWrite), topicACL(dataTopic, opWrite)},
			deny: []acl{topicACL(dataTopic, opWrite)},
			run: func(p *aclPair, v int16, phase string) {
				id := fresh("tx-aptd-", phase, v)
				pid, epoch := initTransactional(p.admin, id)
				p.alice.compare("1", addPartitionsRequest(v, id, pid, epoch, dataTopic, 2))
				p.admin.send(endTxnRequest(3, id, pid, epoch, false))
			}},
		{key: kmsg.AddOffsetsToTxn, name: "write", allow: []acl{txnsACL("tx-ao-", opWrite), groupACL("g-ao", opRead)},
			run: func(p *aclPair, v int16, phase string) {
				id := fresh("tx-ao-", phase, v)
				pid, epoch := initTransactional(p.admin, id)
				p.alice.compare("1", addOffsetsRequest(v, id, pid, epoch, "g-ao"))
				p.admin.send(endTxnRequest(3, id, pid, epoch, false))
			}},
		{key: kmsg.EndTxn, name: "write", allow: []acl{txnsACL("tx-end-", opWrite)},
			run: func(p *aclPair, v int16, phase string) {
				id := fresh("tx-end-", phase, v)
				pid, epoch := initTransactional(p.admin, id)
				p.admin.send(addPartitionsRequest(3, id, pid, epoch, dataTopic, 2))
				p.alice.compare("1", endTxnRequest(v, id, pid, epoch, false))
			}},
		{key: kmsg.TxnOffsetCommit, name: "write", allow: []acl{txnsACL("tx-toc-", opWrite), groupACL("g-toc", opRead), topicACL(dataTopic, opRead)},
			run: func(p *aclPair, v int16, phase string) {
				id := fresh("tx-toc-", phase, v)
				pid, epoch := initTransactional(p.admin, id)
				p.admin.send(addOffsetsRequest(3, id, pid, epoch, "g-toc"))
				p.alice.compare("1", txnOffsetCommitRequest(v, id, "g-toc", pid, epoch, dataTopic))
				p.admin.send(endTxnRequest(3, id, pid, epoch, false))
			}},
		{key: kmsg.WriteTxnMarkers, name: "cluster-action", allow: []acl{clusterACL(opClusterAction)},
			run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", writeTxnMarkersRequest(v, dataTopic, 2)) }},
		{key: kmsg.DescribeTransactions, name: "describe", allow: []acl{txnACL("tx-init", opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				initTransactional(p.admin, "tx-init")
				req := kmsg.NewPtrDescribeTransactionsRequest()
				req.SetVersion(v)
				req.TransactionalIDs = []string{"tx-init"}
				p.alice.compare("1", req)
			}},
		{key: kmsg.ListTransactions, name: "describe", allow: []acl{txnACL("tx-init", opDescribe)},
			run: func(p *aclPair, v int16, _ string) {
				req := kmsg.NewPtrListTransactionsRequest()
				req.SetVersion(v)
				req.ProducerIDFilters, req.StateFilters, req.DurationFilterMillis = []int64{}, []string{"Empty", "CompleteAbort"}, -1
				p.alice.compare("1", req)
			}},
	}
}

func adminACLCases() []aclCase {
	clusterCase := func(key kmsg.Key, name string, op kmsg.ACLOperation, build func(p *aclPair, v int16, phase string) kmsg.Request) aclCase {
		return aclCase{key: key, name: name, allow: []acl{clusterACL(op)},
			run: func(p *aclPair, v int16, phase string) { p.alice.compare("1", build(p, v, phase)) }}
	}
	unauthorized := func(key kmsg.Key, name string, build func(v int16) kmsg.Request) aclCase {
		return aclCase{key: key, name: name, run: func(p *aclPair, v int16, _ string) { p.alice.compare("1", build(v)) }}
	}
	return []aclCase{
		unauthorized(kmsg.ApiVersions, "any", func(v int16) kmsg.Request {
			req := kmsg.NewPtrApiVersionsRequest()
			req.SetVersion(v)
			req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-differential", "1"
			return req
		}),
		unauthorized(kmsg.SASLHandshake, "after-login", func(v int16) kmsg.Request {
			req := kmsg.NewPtrSASLHandshakeRequest()
			req.SetVersion(v)
			req.Mechanism = "PLAIN"
			return req
		}),
		unauthorized(kmsg.SASLAuthenticate, "after-login", func(v int16) kmsg.Request {
			req := kmsg.NewPtrSASLAuthenticateRequest()
			req.SetVersion(v)
			req.SASLAuthBytes = []byte("\x00alice\x00alice-secret")
			return req
		}),
		unauthorized(kmsg.GetTelemetrySubscriptions, "any", func(v int16) kmsg.Request {
			req := kmsg.NewPtrGetTelemetrySubscriptionsRequest()
			req.SetVersion(v)
			return req
		}),
		unauthorized(kmsg.DescribeCluster, "no-acl-needed", func(v int16) kmsg.Request {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.SetVersion(v)
			return req
		}),
		clusterCase(kmsg.DescribeCluster, "authorized-operations", opDescribe, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.SetVersion(v)
			req.IncludeClusterAuthorizedOperations = true
			return req
		}),
		{key: kmsg.CreateTopics, name: "create-topic", allow: []acl{topicsACL("ct-", opCreate)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", createTopicsRequest(v, fresh("ct-", phase, v), 1, 1, false))
			}},
		{key: kmsg.CreateTopics, name: "create-cluster-with-configs", allow: []acl{clusterACL(opCreate), topicsACL("ctc-", opDescribeConfigs)},
			deny: []acl{topicsACL("ctc-", opDescribeConfigs)},
			run: func(p *aclPair, v int16, phase string) {
				p.alice.compare("1", createTopicsRequest(v, fresh("ctc-", phase, v), 1, 1, false))
			}},
		{key: kmsg.DeleteTopics, name: "delete", allow: []acl{topicsACL("dt-", opDelete)},
			run: func(p *aclPair, v int16, phase string) {
				topic := fresh("dt-", phase, v)
				_ = createTopic(p.admin, topic, 1, nil)
				p.alice.compare("1", deleteTopicsRequest(p.alice, v, topic, [16]byte{}))
			}},
		{key: kmsg.CreatePartitions, name: "alter", allow: []acl{topicACL(dataTopic, opAlter)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", createPartitionsRequest(v, dataTopic, 4, true))
			}},
		{key: kmsg.DescribeConfigs, name: "topic", allow: []acl{topicACL(dataTopic, opDescribeConfigs)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeTopic, dataTopic, "retention.ms"))
			}},
		{key: kmsg.DescribeConfigs, name: "broker", allow: []acl{clusterACL(opDescribeConfigs)},
			run: func(p *aclPair, v int16, _ string) {
				p.alice.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeBroker, "1", "num.partitions"))
			}},
		{key: kmsg.AlterConfigs, name: "topic", allow: []acl{topicACL(dataTopic, opAlterConfigs)},
			run: func(p *aclPair, v int16, _ string) {
				req := alterConfigsRequest(v, dataTopic, "retention.ms", "604800000")
				req.ValidateOnly = true
				p.alice.compare("1", req)
			}},
		{key: kmsg.IncrementalAlterConfigs, name: "topic", allow: []acl{topicACL(dataTopic, opAlterConfigs)},
			run: func(p *aclPair, v int16, _ string) {
				req := incrementalAlterRequest(v, dataTopic, kmsg.IncrementalAlterConfigOpSet, "retention.ms", "604800000")
				req.ValidateOnly = true
				p.alice.compare("1", req)
			}},
		clusterCase(kmsg.DescribeACLs, "cluster", opDescribe, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrDescribeACLsRequest()
			req.SetVersion(v)
			req.ResourceType, req.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
			req.Principal, req.Operation, req.PermissionType = kmsg.StringPtr(aclPrincipal), kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
			return req
		}),
		clusterCase(kmsg.CreateACLs, "cluster", opAlter, func(_ *aclPair, v int16, phase string) kmsg.Request {
			req := kmsg.NewPtrCreateACLsRequest()
			req.SetVersion(v)
			c := kmsg.NewCreateACLsRequestCreation()
			c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceTypeTopic, fresh("bob-", phase, v), kmsg.ACLResourcePatternTypeLiteral
			c.Principal, c.Host, c.Operation, c.PermissionType = "User:bob", "*", opRead, kmsg.ACLPermissionTypeAllow
			req.Creations = append(req.Creations, c)
			return req
		}),
		clusterCase(kmsg.DeleteACLs, "cluster", opAlter, func(_ *aclPair, v int16, phase string) kmsg.Request {
			req := kmsg.NewPtrDeleteACLsRequest()
			req.SetVersion(v)
			f := kmsg.NewDeleteACLsRequestFilter()
			f.ResourceType, f.ResourceName, f.ResourcePatternType = kmsg.ACLResourceTypeTopic, kmsg.StringPtr(fresh("bob-", phase, v)), kmsg.ACLResourcePatternTypeLiteral
			f.Principal, f.Operation, f.PermissionType = kmsg.StringPtr("User:bob"), kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
			req.Filters = append(req.Filters, f)
			return req
		}),
		clusterCase(kmsg.AlterReplicaLogDirs, "cluster", opAlter, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrAlterReplicaLogDirsRequest()
			req.SetVersion(v)
			d := kmsg.NewAlterReplicaLogDirsRequestDir()
			d.Dir = "/nonexistent/acl-differential"
			t := kmsg.NewAlterReplicaLogDirsRequestDirTopic()
			t.Topic, t.Partitions = dataTopic, []int32{0}
			d.Topics = append(d.Topics, t)
			req.Dirs = append(req.Dirs, d)
			return req
		}),
		clusterCase(kmsg.DescribeLogDirs, "cluster", opDescribe, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrDescribeLogDirsRequest()
			req.SetVersion(v)
			t := kmsg.NewDescribeLogDirsRequestTopic()
			t.Topic, t.Partitions = dataTopic, []int32{0}
			req.Topics = append(req.Topics, t)
			return req
		}),
		clusterCase(kmsg.ElectLeaders, "cluster", opAlter, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrElectLeadersRequest()
			req.SetVersion(v)
			req.TimeoutMillis = 10000
			t := kmsg.NewElectLeadersRequestTopic()
			t.Topic, t.Partitions = dataTopic, []int32{0}
			req.Topics = append(req.Topics, t)
			return req
		}),
		clusterCase(kmsg.AlterPartitionAssignments, "cluster", opAlter, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
			req.SetVersion(v)
			req.TimeoutMillis = 10000
			t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			t.Topic = dataTopic
			pt := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
			pt.Partition = 0 // null replicas: cancel a reassignment there is none of
			t.Partitions = append(t.Partitions, pt)
			req.Topics = append(req.Topics, t)
			return req
		}),
		clusterCase(kmsg.ListPartitionReassignments, "cluster", opDescribe, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrListPartitionReassignmentsRequest()
			req.SetVersion(v)
			req.TimeoutMillis = 10000
			return req
		}),
		clusterCase(kmsg.DescribeClientQuotas, "cluster", opDescribeConfigs, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrDescribeClientQuotasRequest()
			req.SetVersion(v)
			return req
		}),
		clusterCase(kmsg.AlterClientQuotas, "cluster", opAlterConfigs, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrAlterClientQuotasRequest()
			req.SetVersion(v)
			req.ValidateOnly = true
			e := kmsg.NewAlterClientQuotasRequestEntry()
			c := kmsg.NewAlterClientQuotasRequestEntryEntity()
			c.Type, c.Name = "user", kmsg.StringPtr("bob")
			e.Entity = append(e.Entity, c)
			o := kmsg.NewAlterClientQuotasRequestEntryOp()
			o.Key, o.Value = "producer_byte_rate", 1024
			e.Ops = append(e.Ops, o)
			req.Entries = append(req.Entries, e)
			return req
		}),
		clusterCase(kmsg.DescribeUserSCRAMCredentials, "cluster", opDescribe, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
			req.SetVersion(v)
			// Every user, asked as an empty list: Kafka 4.4.0's refusal of a null
			// list throws (NullPointerException in getErrorResponse) and never answers.
			req.Users = []kmsg.DescribeUserSCRAMCredentialsRequestUser{}
			return req
		}),
		clusterCase(kmsg.AlterUserSCRAMCredentials, "cluster", opAlter, func(_ *aclPair, v int16, phase string) kmsg.Request {
			req := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
			req.SetVersion(v)
			u := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
			u.Name, u.Mechanism, u.Iterations = fresh("carol-", phase, v), 1, 8192
			salted := sha256.Sum256([]byte("carol"))
			u.Salt, u.SaltedPassword = []byte("salt-of-carol"), salted[:]
			req.Upsertions = append(req.Upsertions, u)
			return req
		}),
		clusterCase(kmsg.DescribeQuorum, "cluster", opDescribe, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrDescribeQuorumRequest()
			req.SetVersion(v)
			t := kmsg.NewDescribeQuorumRequestTopic()
			t.Topic = "__cluster_metadata"
			pt := kmsg.NewDescribeQuorumRequestTopicPartition()
			t.Partitions = append(t.Partitions, pt)
			req.Topics = append(req.Topics, t)
			return req
		}),
		clusterCase(kmsg.UpdateFeatures, "cluster", opAlter, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrUpdateFeaturesRequest()
			req.SetVersion(v)
			req.TimeoutMillis, req.ValidateOnly = 10000, true
			f := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
			f.Feature, f.MaxVersionLevel, f.UpgradeType = "group.version", 1, 1
			req.FeatureUpdates = append(req.FeatureUpdates, f)
			return req
		}),
		clusterCase(kmsg.UnregisterBroker, "cluster", opAlter, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrUnregisterBrokerRequest()
			req.SetVersion(v)
			req.BrokerID = 99
			return req
		}),
		clusterCase(kmsg.ListConfigResources, "cluster", opDescribeConfigs, func(_ *aclPair, v int16, _ string) kmsg.Request {
			req := kmsg.NewPtrListConfigResourcesRequest()
			req.SetVersion(v)
			return req
		}),
		{key: kmsg.CreateDelegationToken, name: "own", run: func(p *aclPair, v int16, _ string) {
			req := kmsg.NewPtrCreateDelegationTokenRequest()
			req.SetVersion(v)
			req.MaxLifetimeMillis = -1
			p.alice.compare("1", req)
		}},
		{key: kmsg.CreateDelegationToken, name: "for-another-owner", minVersion: 3, allow: []acl{userACL("User:bob", opCreateTokens)},
			run: func(p *aclPair, v int16, _ string) {
				req := kmsg.NewPtrCreateDelegationTokenRequest()
				req.SetVersion(v)
				req.MaxLifetimeMillis = -1
				req.OwnerPrincipalType, req.OwnerPrincipalName = kmsg.StringPtr("User"), kmsg.StringPtr("bob")
				p.alice.compare("1", req)
			}},
		{key: kmsg.RenewDelegationToken, name: "unknown-token", run: func(p *aclPair, v int16, _ string) {
			req := kmsg.NewPtrRenewDelegationTokenRequest()
			req.SetVersion(v)
			req.HMAC, req.RenewTimeMillis = []byte("not-a-token"), -1
			p.alice.compare("1", req)
		}},
		{key: kmsg.ExpireDelegationToken, name: "unknown-token", run: func(p *aclPair, v int16, _ string) {
			req := kmsg.NewPtrExpireDelegationTokenRequest()
			req.SetVersion(v)
			req.HMAC, req.ExpiryPeriodMillis = []byte("not-a-token"), -1
			p.alice.compare("1", req)
		}},
		{key: kmsg.DescribeDelegationToken, name: "all", run: func(p *aclPair, v int16, _ string) {
			req := kmsg.NewPtrDescribeDelegationTokenRequest()
			req.SetVersion(v)
			if resp, ok := p.alice.compare("1", req).(*kmsg.DescribeDelegationTokenResponse); ok {
				// Kafka lists tokens in its map's order; compare them in the order issued.
				sort.SliceStable(resp.TokenDetails, func(i, j int) bool {
					return resp.TokenDetails[i].IssueTimestamp < resp.TokenDetails[j].IssueTimestamp
				})
			}
		}},
	}
}

// awaitTransactionsDone waits until no transaction is open on the partition (its last stable
// offset has reached its end): Kafka writes an abort's markers after EndTxn has answered, and the
// next record's offset depends on whether they are in.
func awaitTransactionsDone(admin *session, topic string, partition int32) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		end := listedOffset(admin, topic, partition, 0)
		if end >= 0 && end == listedOffset(admin, topic, partition, 1) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listedOffset is the partition's latest offset at isolation level isolation, -1 without one.
func listedOffset(admin *session, topic string, partition int32, isolation int8) int64 {
	req := listOffsetsRequest(admin, 5, topic, partition, -1)
	req.IsolationLevel = isolation
	resp, ok := admin.send(req).(*kmsg.ListOffsetsResponse)
	if !ok || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		return -1
	}
	return resp.Topics[0].Partitions[0].Offset
}
