package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func createPartitionsTopic(name string, count int32, assignments ...[]int32) kmsg.CreatePartitionsRequestTopic {
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = name, count
	for _, a := range assignments {
		rt.Assignment = append(rt.Assignment, kmsg.CreatePartitionsRequestTopicAssignment{Replicas: a})
	}
	return rt
}

func TestCreatePartitions(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("grow", 1, nil)
	f.createTopic("same", 2, nil)
	f.createTopic("assigned", 1, nil)
	f.createTopic("dup", 1, nil)
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.Topics = []kmsg.CreatePartitionsRequestTopic{
		createPartitionsTopic("grow", 4),
		createPartitionsTopic("same", 2),
		createPartitionsTopic("same-smaller", 1),
		createPartitionsTopic("missing", 3),
		createPartitionsTopic("assigned", 3, []int32{1}, []int32{1}),
		createPartitionsTopic("dup", 2),
		createPartitionsTopic("dup", 3),
	}
	resp := f.call(req, 3).(*kmsg.CreatePartitionsResponse)
	got := map[string]int16{}
	for _, rt := range resp.Topics {
		if _, twice := got[rt.Topic]; twice {
			t.Fatalf("%s answered twice", rt.Topic)
		}
		got[rt.Topic] = rt.ErrorCode
		if rt.ErrorCode != 0 && rt.ErrorMessage == nil && rt.ErrorCode != kerr.UnknownTopicOrPartition.Code {
			t.Errorf("%s: error %d without a message", rt.Topic, rt.ErrorCode)
		}
	}
	want := map[string]int16{
		"grow": 0, "same": kerr.InvalidPartitions.Code, "same-smaller": kerr.UnknownTopicOrPartition.Code,
		"missing": kerr.UnknownTopicOrPartition.Code, "assigned": 0, "dup": kerr.InvalidRequest.Code,
	}
	for name, code := range want {
		if got[name] != code {
			t.Errorf("%s: error %d, want %d", name, got[name], code)
		}
	}
	img := f.store.Image()
	for name, n := range map[string]int{"grow": 4, "assigned": 3, "dup": 1} {
		if tp, _ := img.Topic(name); len(tp.Partitions) != n {
			t.Errorf("%s has %d partitions, want %d", name, len(tp.Partitions), n)
		}
	}
	if _, open := f.mgr.Get("grow", 3); !open {
		t.Fatal("grow-3 has no log")
	}
}

func TestCreatePartitionsRefusals(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 3, nil)
	for _, c := range []struct {
		name string
		rt   kmsg.CreatePartitionsRequestTopic
		want int16
	}{
		{"decrease", createPartitionsTopic("t", 2), kerr.InvalidPartitions.Code},
		{"wrong assignment count", createPartitionsTopic("t", 5, []int32{1}), kerr.InvalidReplicaAssignment.Code},
		{"unknown broker", createPartitionsTopic("t", 4, []int32{2}), kerr.InvalidReplicaAssignment.Code},
		{"empty replicas", createPartitionsTopic("t", 4, []int32{}), kerr.InvalidReplicaAssignment.Code},
	} {
		req := kmsg.NewPtrCreatePartitionsRequest()
		req.Topics = []kmsg.CreatePartitionsRequestTopic{c.rt}
		resp := f.call(req, 0).(*kmsg.CreatePartitionsResponse)
		if resp.Topics[0].ErrorCode != c.want {
			t.Errorf("%s: error %d, want %d", c.name, resp.Topics[0].ErrorCode, c.want)
		}
	}
}

func TestCreatePartitionsValidateOnly(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.ValidateOnly = true
	req.Topics = []kmsg.CreatePartitionsRequestTopic{createPartitionsTopic("t", 5), createPartitionsTopic("x", 2)}
	resp := f.call(req, 2).(*kmsg.CreatePartitionsResponse)
	if resp.Topics[0].ErrorCode != 0 || resp.Topics[1].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("%+v", resp.Topics)
	}
	if tp, _ := f.store.Image().Topic("t"); len(tp.Partitions) != 1 {
		t.Fatalf("validate_only created partitions: %d", len(tp.Partitions))
	}
}
