package integration

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// aclTableCase is one request sent as bob, who has no ACL, and as the
// super user: code reads the error the case is about from the answer.
type aclTableCase struct {
	name string
	req  func() kmsg.Request
	code func(kmsg.Response) int16
	want int16
}

func topicPartitions(name string) (string, []int32) { return name, []int32{0} }

// TestACLEveryAPIRefusesAPrincipalWithoutACLs sends the checked APIs as a
// principal with no ACL, expecting Kafka's refusal, and as a super user,
// expecting none of the authorization errors.
func TestACLEveryAPIRefusesAPrincipalWithoutACLs(t *testing.T) {
	w := startACLWorld(t, "orders")
	ordersID := w.topicID(t, "orders")
	authErrors := map[int16]bool{kerr.TopicAuthorizationFailed.Code: true, kerr.GroupAuthorizationFailed.Code: true,
		kerr.ClusterAuthorizationFailed.Code: true, kerr.TransactionalIDAuthorizationFailed.Code: true}
	cases := []aclTableCase{
		{"ListOffsets", func() kmsg.Request {
			req := kmsg.NewPtrListOffsetsRequest()
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = "orders"
			p := kmsg.NewListOffsetsRequestTopicPartition()
			p.Timestamp = -1
			rt.Partitions = append(rt.Partitions, p)
			req.Topics = append(req.Topics, rt)
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0].ErrorCode },
			kerr.TopicAuthorizationFailed.Code},
		{"OffsetForLeaderEpoch", func() kmsg.Request {
			req := kmsg.NewPtrOffsetForLeaderEpochRequest()
			rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
			rt.Topic = "orders"
			p := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
			p.CurrentLeaderEpoch, p.LeaderEpoch = -1, 0
			rt.Partitions = append(rt.Partitions, p)
			req.Topics = append(req.Topics, rt)
			return req
		}, func(r kmsg.Response) int16 {
			return r.(*kmsg.OffsetForLeaderEpochResponse).Topics[0].Partitions[0].ErrorCode
		},
			kerr.TopicAuthorizationFailed.Code},
		{"DeleteRecords", func() kmsg.Request {
			req := kmsg.NewPtrDeleteRecordsRequest()
			rt := kmsg.NewDeleteRecordsRequestTopic()
			rt.Topic = "orders"
			p := kmsg.NewDeleteRecordsRequestTopicPartition()
			p.Offset = 0
			rt.Partitions = append(rt.Partitions, p)
			req.Topics, req.TimeoutMillis = append(req.Topics, rt), 5000
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.DeleteRecordsResponse).Topics[0].Partitions[0].ErrorCode },
			kerr.TopicAuthorizationFailed.Code},
		{"CreatePartitions", func() kmsg.Request {
			req := kmsg.NewPtrCreatePartitionsRequest()
			rt := kmsg.NewCreatePartitionsRequestTopic()
			rt.Topic, rt.Count = "orders", 3
			req.Topics, req.TimeoutMillis, req.ValidateOnly = append(req.Topics, rt), 5000, true
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.CreatePartitionsResponse).Topics[0].ErrorCode },
			kerr.TopicAuthorizationFailed.Code},
		{"DeleteTopics by id, not describable", func() kmsg.Request {
			req := kmsg.NewPtrDeleteTopicsRequest()
			rt := kmsg.NewDeleteTopicsRequestTopic()
			rt.TopicID = ordersID
			req.Topics, req.TimeoutMillis = append(req.Topics, rt), 1
			return req
		}, func(r kmsg.Response) int16 {
			rt := r.(*kmsg.DeleteTopicsResponse).Topics[0]
			if rt.ErrorCode == kerr.TopicAuthorizationFailed.Code && rt.Topic != nil {
				return -2 // the name of a topic bob may not describe
			}
			return rt.ErrorCode
		}, kerr.TopicAuthorizationFailed.Code},
		{"DescribeProducers", func() kmsg.Request {
			req := kmsg.NewPtrDescribeProducersRequest()
			rt := kmsg.NewDescribeProducersRequestTopic()
			rt.Topic, rt.Partitions = topicPartitions("orders")
			req.Topics = append(req.Topics, rt)
			return req
		}, func(r kmsg.Response) int16 {
			return r.(*kmsg.DescribeProducersResponse).Topics[0].Partitions[0].ErrorCode
		},
			kerr.TopicAuthorizationFailed.Code},
		{"DescribeTopicPartitions", func() kmsg.Request {
			req := kmsg.NewPtrDescribeTopicPartitionsRequest()
			rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
			rt.Topic = "orders"
			req.Topics, req.ResponsePartitionLimit = append(req.Topics, rt), 100
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.DescribeTopicPartitionsResponse).Topics[0].ErrorCode },
			kerr.TopicAuthorizationFailed.Code},
		{"OffsetFetch", func() kmsg.Request {
			req := kmsg.NewPtrOffsetFetchRequest()
			g := kmsg.NewOffsetFetchRequestGroup()
			g.Group = "g"
			req.Groups = append(req.Groups, g)
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.OffsetFetchResponse).Groups[0].ErrorCode },
			kerr.GroupAuthorizationFailed.Code},
		{"DeleteGroups", func() kmsg.Request {
			req := kmsg.NewPtrDeleteGroupsRequest()
			req.Groups = []string{"g"}
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.DeleteGroupsResponse).Groups[0].ErrorCode },
			kerr.GroupAuthorizationFailed.Code},
		{"OffsetDelete", func() kmsg.Request {
			req := kmsg.NewPtrOffsetDeleteRequest()
			req.Group = "g"
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.OffsetDeleteResponse).ErrorCode },
			kerr.GroupAuthorizationFailed.Code},
		{"JoinGroup", func() kmsg.Request {
			req := kmsg.NewPtrJoinGroupRequest()
			req.Group, req.ProtocolType, req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = "g", "consumer", 10000, 10000
			req.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range"}}
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.JoinGroupResponse).ErrorCode }, kerr.GroupAuthorizationFailed.Code},
		{"AddOffsetsToTxn", func() kmsg.Request {
			req := kmsg.NewPtrAddOffsetsToTxnRequest()
			req.TransactionalID, req.Group, req.ProducerID = "tx", "g", 1
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.AddOffsetsToTxnResponse).ErrorCode },
			kerr.TransactionalIDAuthorizationFailed.Code},
		{"EndTxn", func() kmsg.Request {
			req := kmsg.NewPtrEndTxnRequest()
			req.TransactionalID, req.ProducerID = "tx", 1
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.EndTxnResponse).ErrorCode }, kerr.TransactionalIDAuthorizationFailed.Code},
		{"TxnOffsetCommit", func() kmsg.Request {
			req := kmsg.NewPtrTxnOffsetCommitRequest()
			req.TransactionalID, req.Group, req.ProducerID, req.Generation = "tx", "g", 1, -1
			rt := kmsg.NewTxnOffsetCommitRequestTopic()
			rt.Topic, rt.TopicID = "orders", ordersID
			p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			rt.Partitions = append(rt.Partitions, p)
			req.Topics = append(req.Topics, rt)
			return req
		}, func(r kmsg.Response) int16 {
			return r.(*kmsg.TxnOffsetCommitResponse).Topics[0].Partitions[0].ErrorCode
		},
			kerr.TransactionalIDAuthorizationFailed.Code},
		{"DescribeTransactions", func() kmsg.Request {
			req := kmsg.NewPtrDescribeTransactionsRequest()
			req.TransactionalIDs = []string{"tx"}
			return req
		}, func(r kmsg.Response) int16 {
			return r.(*kmsg.DescribeTransactionsResponse).TransactionStates[0].ErrorCode
		},
			kerr.TransactionalIDAuthorizationFailed.Code},
		{"FindCoordinator transaction", func() kmsg.Request {
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.CoordinatorType, req.CoordinatorKeys = 1, []string{"tx"}
			return req
		}, func(r kmsg.Response) int16 { return r.(*kmsg.FindCoordinatorResponse).Coordinators[0].ErrorCode },
			kerr.TransactionalIDAuthorizationFailed.Code},
	}
	for _, c := range []struct {
		name string
		req  kmsg.Request
	}{
		{"DescribeLogDirs", kmsg.NewPtrDescribeLogDirsRequest()},
		{"ListPartitionReassignments", kmsg.NewPtrListPartitionReassignmentsRequest()},
		{"DescribeUserScramCredentials", kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()},
		{"DescribeClientQuotas", kmsg.NewPtrDescribeClientQuotasRequest()},
		{"AlterPartitionReassignments", kmsg.NewPtrAlterPartitionAssignmentsRequest()},
		{"UpdateFeatures", kmsg.NewPtrUpdateFeaturesRequest()},
		{"DescribeAcls", &kmsg.DescribeACLsRequest{ResourceType: 1, ResourcePatternType: 1, Operation: 1, PermissionType: 1}},
	} {
		req := c.req
		cases = append(cases, aclTableCase{c.name, func() kmsg.Request { return req },
			func(r kmsg.Response) int16 { return topLevelCode(t, r) }, kerr.ClusterAuthorizationFailed.Code})
	}
	cases = append(cases, aclTableCase{"ElectLeaders", func() kmsg.Request {
		req := kmsg.NewPtrElectLeadersRequest()
		rt := kmsg.NewElectLeadersRequestTopic()
		rt.Topic, rt.Partitions = topicPartitions("orders")
		req.Topics, req.TimeoutMillis = append(req.Topics, rt), 5000
		return req
	}, func(r kmsg.Response) int16 { return r.(*kmsg.ElectLeadersResponse).Topics[0].Partitions[0].ErrorCode },
		kerr.ClusterAuthorizationFailed.Code})
	cases = append(cases, aclTableCase{"AlterClientQuotas", func() kmsg.Request {
		req := kmsg.NewPtrAlterClientQuotasRequest()
		e := kmsg.NewAlterClientQuotasRequestEntry()
		e.Entity = []kmsg.AlterClientQuotasRequestEntryEntity{{Type: "user", Name: kmsg.StringPtr("bob")}}
		e.Ops = []kmsg.AlterClientQuotasRequestEntryOp{{Key: "producer_byte_rate", Value: 1024}}
		req.Entries, req.ValidateOnly = append(req.Entries, e), true
		return req
	}, func(r kmsg.Response) int16 { return r.(*kmsg.AlterClientQuotasResponse).Entries[0].ErrorCode },
		kerr.ClusterAuthorizationFailed.Code})

	for _, c := range cases {
		if got := c.code(request[kmsg.Response](t, w.bob, c.req())); got != c.want {
			t.Errorf("%s as bob: %d (%v), want %d (%v)", c.name, got, kerr.ErrorForCode(got), c.want, kerr.ErrorForCode(c.want))
		}
		if c.name == "DeleteTopics by id, not describable" {
			continue // the super user would delete orders
		}
		if got := c.code(request[kmsg.Response](t, w.admin, c.req())); authErrors[got] {
			t.Errorf("%s as the super user: %v", c.name, kerr.ErrorForCode(got))
		}
	}
}

// topLevelCode reads a response's top-level ErrorCode.
func topLevelCode(t *testing.T, r kmsg.Response) int16 {
	t.Helper()
	switch r := r.(type) {
	case *kmsg.DescribeLogDirsResponse:
		return r.ErrorCode
	case *kmsg.ListPartitionReassignmentsResponse:
		return r.ErrorCode
	case *kmsg.DescribeUserSCRAMCredentialsResponse:
		return r.ErrorCode
	case *kmsg.DescribeClientQuotasResponse:
		return r.ErrorCode
	case *kmsg.AlterPartitionAssignmentsResponse:
		return r.ErrorCode
	case *kmsg.UpdateFeaturesResponse:
		return r.ErrorCode
	case *kmsg.DescribeACLsResponse:
		return r.ErrorCode
	}
	t.Fatalf("no top-level code read for %T", r)
	return 0
}
