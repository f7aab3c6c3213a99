package integration

import (
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// franz-go's admin calls for leader elections, reassignments, the metadata
// quorum, broker registrations and log levels, against a real Karst: the
// answers Apache Kafka 4.4.0 gives on one broker.

func TestKadmElectLeaders(t *testing.T) {
	_, _, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "elect", 2)
	for _, how := range []kadm.ElectLeadersHow{kadm.ElectPreferredReplica, kadm.ElectLiveReplica} {
		named := kadm.TopicsSet{}
		named.Add("elect", 0, 1, 5)
		rs, err := adm.ElectLeaders(ctx, how, named)
		if err != nil {
			t.Fatal(err)
		}
		for p, want := range map[int32]error{0: kerr.ElectionNotNeeded, 1: kerr.ElectionNotNeeded, 5: kerr.UnknownTopicOrPartition} {
			if got := rs["elect"][p]; !errors.Is(got.Err, want) {
				t.Errorf("how %d partition %d: %v (%s), want %v", how, p, got.Err, got.ErrMessage, want)
			}
		}
		// All partitions: those needing no election are left out.
		all, err := adm.ElectLeaders(ctx, how, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ps, ok := all["elect"]; !ok || len(ps) != 0 {
			t.Errorf("how %d, all partitions: %v", how, all)
		}
	}
}

func TestKadmPartitionReassignments(t *testing.T) {
	_, _, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "move", 2)
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign("move", 0, []int32{1}) // the replicas it has: done at once
	req.Assign("move", 1, []int32{1, 2})
	req.CancelAssign("move", 5)
	rs, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r := rs["move"][0]; r.Err != nil {
		t.Errorf("to its own replicas: %v %s", r.Err, r.ErrMessage)
	}
	if r := rs["move"][1]; !errors.Is(r.Err, kerr.InvalidReplicaAssignment) ||
		r.ErrMessage != "The manual partition assignment includes broker 2, but no such broker is registered." {
		t.Errorf("to an unknown broker: %v %s", r.Err, r.ErrMessage)
	}
	if r := rs["move"][5]; !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
		t.Errorf("unknown partition: %v %s", r.Err, r.ErrMessage)
	}
	var cancel kadm.AlterPartitionAssignmentsReq
	cancel.CancelAssign("move", 0)
	if rs, err = adm.AlterPartitionAssignments(ctx, cancel); err != nil || !errors.Is(rs["move"][0].Err, kerr.NoReassignmentInProgress) {
		t.Errorf("cancel with none in progress: %v %v", err, rs)
	}
	list, err := adm.ListPartitionReassignments(ctx, nil)
	if err != nil || len(list) != 0 {
		t.Fatalf("reassignments in progress: %v %v", list, err)
	}
	td, err := adm.ListTopics(ctx, "move")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range td["move"].Partitions {
		if !slices.Equal(p.Replicas, []int32{1}) || p.Leader != 1 {
			t.Errorf("partition %d after the reassignments: %+v", p.Partition, p)
		}
	}
}

func TestDescribeQuorumReportsTheSingleVoter(t *testing.T) {
	_, cl, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "quorum", 1) // a metadata write: the node's raft epoch has begun
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Version != 2 || resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("%+v", resp)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 || p.LeaderID != 1 || p.LeaderEpoch < 1 || p.HighWatermark <= 0 || len(p.CurrentVoters) != 1 || len(p.Observers) != 0 {
		t.Fatalf("partition %+v", p)
	}
	if v := p.CurrentVoters[0]; v.ReplicaID != 1 || v.LogEndOffset != p.HighWatermark || v.LastFetchTimestamp <= 0 || v.ReplicaDirectoryID != [16]byte{} {
		t.Fatalf("voter %+v", v)
	}
	if len(resp.Nodes) != 1 || resp.Nodes[0].NodeID != 1 || len(resp.Nodes[0].Listeners) != 1 || resp.Nodes[0].Listeners[0].Name != "PLAINTEXT" {
		t.Fatalf("nodes %+v", resp.Nodes)
	}
	// The high watermark follows metadata writes.
	createAdminTopic(t, ctx, adm, "quorum-2", 1)
	again, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if hw := again.Topics[0].Partitions[0].HighWatermark; hw <= p.HighWatermark {
		t.Fatalf("high watermark %d after a topic creation, was %d", hw, p.HighWatermark)
	}
}

func TestUnregisterBrokerAnswers(t *testing.T) {
	_, cl, _ := adminClient(t)
	ctx := testContext(t)
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = 99
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode != kerr.BrokerIDNotRegistered.Code || resp.ErrorMessage == nil || *resp.ErrorMessage != "Broker ID 99 is not currently registered" {
		t.Fatalf("unknown broker: %d %v", resp.ErrorCode, resp.ErrorMessage)
	}
}

func TestBrokerLoggerConfigs(t *testing.T) {
	_, cl, _ := adminClient(t)
	ctx := testContext(t)
	describe := func() map[string]string {
		t.Helper()
		req := kmsg.NewPtrDescribeConfigsRequest()
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBrokerLogger, "1"
		req.Resources = append(req.Resources, r)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil || resp.Resources[0].ErrorCode != 0 {
			t.Fatalf("describe: %v %+v", err, resp)
		}
		out := map[string]string{}
		for _, c := range resp.Resources[0].Configs {
			out[c.Name] = *c.Value
		}
		return out
	}
	before := describe()
	for _, name := range []string{"root", "karst", "karst.server", "karst.handler", "karst.storage", "karst.group", "karst.txn", "karst.node"} {
		if _, ok := before[name]; !ok {
			t.Fatalf("logger %s not described: %v", name, before)
		}
	}
	set := "DEBUG"
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBrokerLogger, "1"
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Value = "karst", &set
	r.Configs = append(r.Configs, c)
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || resp.Resources[0].ErrorCode != 0 {
		t.Fatalf("set karst=DEBUG: %v %+v", err, resp)
	}
	after := describe()
	for _, name := range []string{"karst", "karst.server", "karst.group"} {
		if after[name] != "DEBUG" {
			t.Errorf("%s after karst=DEBUG: %s", name, after[name])
		}
	}
	if after["root"] != before["root"] {
		t.Errorf("root changed: %s -> %s", before["root"], after["root"])
	}
}
