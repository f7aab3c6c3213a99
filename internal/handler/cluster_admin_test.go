package handler

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

// Tests of the cluster admin APIs on one node: ElectLeaders,
// AlterPartitionReassignments, ListPartitionReassignments, DescribeQuorum
// and UnregisterBroker, with the answers Apache Kafka 4.4.0 gives on a
// single-node cluster.

func electRequest(electionType int8, topics map[string][]int32) *kmsg.ElectLeadersRequest {
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = electionType
	if topics == nil {
		req.Topics = nil
		return req
	}
	for _, name := range []string{"t", "nope"} {
		if parts, ok := topics[name]; ok {
			tp := kmsg.NewElectLeadersRequestTopic()
			tp.Topic, tp.Partitions = name, parts
			req.Topics = append(req.Topics, tp)
		}
	}
	return req
}

func TestElectLeadersNamedPartitions(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 2, nil)
	for v := int16(0); v <= 2; v++ {
		for _, typ := range []int8{electionPreferred, electionUnclean} {
			resp := f.call(electRequest(typ, map[string][]int32{"t": {0, 1, 7}, "nope": {0}}), v).(*kmsg.ElectLeadersResponse)
			if resp.ErrorCode != 0 || len(resp.Topics) != 2 {
				t.Fatalf("v%d type %d: %+v", v, typ, resp)
			}
			got := resp.Topics[0].Partitions
			want := []struct {
				code int16
				msg  string
			}{
				{kerr.ElectionNotNeeded.Code, "Leader election not needed for topic partition."},
				{kerr.ElectionNotNeeded.Code, "Leader election not needed for topic partition."},
				{kerr.UnknownTopicOrPartition.Code, "No such partition as t-7"},
			}
			for i, w := range want {
				if got[i].ErrorCode != w.code || got[i].ErrorMessage == nil || *got[i].ErrorMessage != w.msg {
					t.Errorf("v%d type %d partition %d: %d %v", v, typ, got[i].Partition, got[i].ErrorCode, got[i].ErrorMessage)
				}
			}
			nope := resp.Topics[1].Partitions[0]
			if nope.ErrorCode != kerr.UnknownTopicOrPartition.Code || *nope.ErrorMessage != "No such topic as nope" {
				t.Errorf("v%d: unknown topic answered %d %v", v, nope.ErrorCode, nope.ErrorMessage)
			}
		}
	}
}

// A null topic list is every partition; those that need no election are
// left out, so each topic comes back without partitions.
func TestElectLeadersAllPartitions(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("a", 3, nil)
	f.createTopic("b", 1, nil)
	resp := f.call(electRequest(electionPreferred, nil), 2).(*kmsg.ElectLeadersResponse)
	if resp.ErrorCode != 0 || len(resp.Topics) != 2 {
		t.Fatalf("%+v", resp)
	}
	for _, tp := range resp.Topics {
		if len(tp.Partitions) != 0 {
			t.Errorf("%s: %+v", tp.Topic, tp.Partitions)
		}
	}
}

// A partition left without a leader (as Kafka's clean shutdown leaves it)
// is given one by an unclean election request, from its ISR.
func TestElectLeadersElectsALeaderlessPartition(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	tp, _ := f.store.Image().Topic("t")
	change := metadata.NewPartitionChangeRecord(metadata.MaxMetadataVersion, tp.ID, 0)
	change.Leader = -1
	if err := f.store.Commit([]metadata.Record{change}); err != nil {
		t.Fatal(err)
	}
	// Preferred: replica 1 is in the ISR, so it becomes leader.
	resp := f.call(electRequest(electionPreferred, nil), 1).(*kmsg.ElectLeadersResponse)
	if p := resp.Topics[0].Partitions; len(p) != 1 || p[0].ErrorCode != 0 || p[0].ErrorMessage != nil {
		t.Fatalf("election: %+v", resp.Topics)
	}
	tp, _ = f.store.Image().Topic("t")
	if p, _ := tp.Partition(0); p.Leader != 1 || p.LeaderEpoch != 2 {
		t.Fatalf("after the election: %+v", p)
	}
	resp = f.call(electRequest(electionUnclean, map[string][]int32{"t": {0}}), 2).(*kmsg.ElectLeadersResponse)
	if p := resp.Topics[0].Partitions[0]; p.ErrorCode != kerr.ElectionNotNeeded.Code {
		t.Fatalf("second election: %+v", p)
	}
}

func TestElectLeadersUnknownType(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	resp := f.call(electRequest(5, map[string][]int32{"t": {0}}), 2).(*kmsg.ElectLeadersResponse)
	if resp.ErrorCode != kerr.InvalidRequest.Code || len(resp.Topics) != 0 {
		t.Fatalf("%+v", resp)
	}
}

func TestAlterPartitionReassignments(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 2, nil)
	for v := int16(0); v <= 1; v++ {
		for _, allow := range []bool{true, false} {
			req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
			req.AllowReplicationFactorChange = allow
			rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			rt.Topic = "t"
			targets := [][]int32{{1}, {1, 2}, {}, {1, 1}, nil, {2}}
			for i, reps := range targets {
				p := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
				p.Partition, p.Replicas = int32(i%2), reps
				rt.Partitions = append(rt.Partitions, p)
			}
			p := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
			p.Partition, p.Replicas = 9, []int32{1}
			rt.Partitions = append(rt.Partitions, p)
			unknown := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			unknown.Topic = "nope"
			p.Partition = 0
			unknown.Partitions = append(unknown.Partitions, p)
			req.Topics = append(req.Topics, rt, unknown)

			resp := f.call(req, v).(*kmsg.AlterPartitionAssignmentsResponse)
			noBroker2 := "The manual partition assignment includes broker 2, but no such broker is registered."
			want := []struct {
				code int16
				msg  string
			}{
				{0, ""},
				{kerr.InvalidReplicaAssignment.Code, noBroker2},
				{kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes an empty replica list."},
				{kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes the broker 1 more than once."},
				{kerr.NoReassignmentInProgress.Code, ""},
				{kerr.InvalidReplicaAssignment.Code, noBroker2},
				{kerr.UnknownTopicOrPartition.Code, "Unable to find partition t:9."},
			}
			if resp.ErrorCode != 0 || len(resp.Topics) != 2 || len(resp.Topics[0].Partitions) != len(want) {
				t.Fatalf("v%d: %+v", v, resp)
			}
			if v >= 1 && resp.AllowReplicationFactorChange != allow {
				t.Errorf("v%d: allow_replication_factor_change %v, sent %v", v, resp.AllowReplicationFactorChange, allow)
			}
			for i, w := range want {
				got := resp.Topics[0].Partitions[i]
				msg := ""
				if got.ErrorMessage != nil {
					msg = *got.ErrorMessage
				}
				if got.ErrorCode != w.code || msg != w.msg {
					t.Errorf("v%d allow=%v #%d: %d %q, want %d %q", v, allow, i, got.ErrorCode, msg, w.code, w.msg)
				}
			}
			if got := resp.Topics[1].Partitions[0]; got.ErrorCode != kerr.UnknownTopicOrPartition.Code || *got.ErrorMessage != "Unable to find a topic named nope." {
				t.Errorf("v%d unknown topic: %d %v", v, got.ErrorCode, got.ErrorMessage)
			}
		}
	}
	// Nothing moved, nothing in progress.
	tp, _ := f.store.Image().Topic("t")
	for _, p := range tp.Partitions {
		if !slices.Equal(p.Replicas, []int32{1}) || p.PartitionEpoch != 0 {
			t.Fatalf("partition changed: %+v", p)
		}
	}
}

func TestListPartitionReassignments(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 2, nil)
	list := func(topics []kmsg.ListPartitionReassignmentsRequestTopic) *kmsg.ListPartitionReassignmentsResponse {
		req := kmsg.NewPtrListPartitionReassignmentsRequest()
		req.Topics = topics
		return f.call(req, 0).(*kmsg.ListPartitionReassignmentsResponse)
	}
	named := func() []kmsg.ListPartitionReassignmentsRequestTopic {
		a := kmsg.NewListPartitionReassignmentsRequestTopic()
		a.Topic, a.Partitions = "t", []int32{0, 1, 5}
		b := kmsg.NewListPartitionReassignmentsRequestTopic()
		b.Topic, b.Partitions = "nope", []int32{0}
		return []kmsg.ListPartitionReassignmentsRequestTopic{a, b}
	}
	if resp := list(nil); resp.ErrorCode != 0 || len(resp.Topics) != 0 {
		t.Fatalf("all: %+v", resp)
	}
	if resp := list(named()); resp.ErrorCode != 0 || len(resp.Topics) != 0 {
		t.Fatalf("named: %+v", resp)
	}
	// A reassignment in progress, as a Kafka cluster's log may hold one.
	tp, _ := f.store.Image().Topic("t")
	change := metadata.NewPartitionChangeRecord(metadata.MaxMetadataVersion, tp.ID, 1)
	change.Replicas, change.AddingReplicas = []int32{1, 2}, []int32{2}
	if err := f.store.Commit([]metadata.Record{change}); err != nil {
		t.Fatal(err)
	}
	for _, resp := range []*kmsg.ListPartitionReassignmentsResponse{list(nil), list(named())} {
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("in progress: %+v", resp)
		}
		p := resp.Topics[0].Partitions[0]
		if p.Partition != 1 || !slices.Equal(p.Replicas, []int32{1, 2}) || !slices.Equal(p.AddingReplicas, []int32{2}) || len(p.RemovingReplicas) != 0 {
			t.Fatalf("in progress: %+v", p)
		}
	}
}

type fixedQuorum QuorumStatus

func (q fixedQuorum) QuorumStatus() QuorumStatus { return QuorumStatus(q) }

func describeQuorumRequest(topic string, partitions ...int32) *kmsg.DescribeQuorumRequest {
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = topic
	for _, p := range partitions {
		rp := kmsg.NewDescribeQuorumRequestTopicPartition()
		rp.Partition = p
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	return req
}

func TestDescribeQuorum(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.b.opts.Quorum = fixedQuorum{LeaderEpoch: 3, HighWatermark: 41, LogEndOffset: 41, DirectoryID: metadata.UUID{7}}
	for v := int16(0); v <= 2; v++ {
		before := time.Now().UnixMilli()
		resp := f.call(describeQuorumRequest("__cluster_metadata", 0), v).(*kmsg.DescribeQuorumResponse)
		if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("v%d: %+v", v, resp)
		}
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.LeaderID != 1 || p.LeaderEpoch != 3 || p.HighWatermark != 41 || len(p.CurrentVoters) != 1 || len(p.Observers) != 0 {
			t.Fatalf("v%d: %+v", v, p)
		}
		voter := p.CurrentVoters[0]
		if voter.ReplicaID != 1 || voter.LogEndOffset != 41 || voter.ReplicaDirectoryID != [16]byte{7} ||
			voter.LastFetchTimestamp < before || voter.LastCaughtUpTimestamp != voter.LastFetchTimestamp {
			t.Fatalf("v%d voter: %+v", v, voter)
		}
		if len(resp.Nodes) != 1 || resp.Nodes[0].NodeID != 1 || len(resp.Nodes[0].Listeners) != 2 ||
			resp.Nodes[0].Listeners[0].Name != "PLAINTEXT" || resp.Nodes[0].Listeners[0].Host != "127.0.0.1" || resp.Nodes[0].Listeners[0].Port != 9092 {
			t.Fatalf("v%d nodes: %+v", v, resp.Nodes)
		}
	}
	for _, req := range []*kmsg.DescribeQuorumRequest{describeQuorumRequest("other", 3), describeQuorumRequest("__cluster_metadata", 0, 1)} {
		resp := f.call(req, 2).(*kmsg.DescribeQuorumResponse)
		if resp.ErrorCode != 0 || len(resp.Nodes) != 0 {
			t.Fatalf("%+v", resp)
		}
		for _, p := range resp.Topics[0].Partitions {
			if p.ErrorCode != kerr.UnknownTopicOrPartition.Code || *p.ErrorMessage != msgUnknownTopicOrPartition {
				t.Fatalf("%+v", p)
			}
		}
	}
}

func TestUnregisterBroker(t *testing.T) {
	f := newAdminFixture(t, nil)
	for _, id := range []int32{2, -1} {
		req := kmsg.NewPtrUnregisterBrokerRequest()
		req.BrokerID = id
		resp := f.call(req, 0).(*kmsg.UnregisterBrokerResponse)
		if resp.ErrorCode != kerr.BrokerIDNotRegistered.Code || resp.ErrorMessage == nil ||
			*resp.ErrorMessage != "Broker ID "+map[int32]string{2: "2", -1: "-1"}[id]+" is not currently registered" {
			t.Fatalf("broker %d: %d %v", id, resp.ErrorCode, resp.ErrorMessage)
		}
	}
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = 1
	if resp := f.call(req, 0).(*kmsg.UnregisterBrokerResponse); resp.ErrorCode != 0 {
		t.Fatalf("this broker: %+v", resp)
	}
	if _, ok := f.store.Image().Broker(1); ok {
		t.Fatal("still registered")
	}
	if resp := f.call(req, 0).(*kmsg.UnregisterBrokerResponse); resp.ErrorCode != kerr.BrokerIDNotRegistered.Code {
		t.Fatalf("again: %+v", resp)
	}
}
