package handler

import (
	"math"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxCapAllocation bounds what refusing one oversized request may
// allocate: far below what sizing anything by its counts would (a
// hundred million partitions' records are gigabytes).
const maxCapAllocation = 16 << 20

// allocatedBy runs fn and returns the bytes allocated meanwhile.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func createTopicsTopic(name string, partitions int32) kmsg.CreateTopicsRequestTopic {
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, 1
	return rt
}

// answer is one topic's part of a response.
type answer struct {
	topic string
	code  int16
	msg   *string
}

// wantRefusedWhole checks that every topic of a request, in order, got the
// same error, as Kafka answers a request its controller failed whole.
func wantRefusedWhole(t *testing.T, names []string, got []answer, code int16, msg string) {
	t.Helper()
	if len(got) != len(names) {
		t.Fatalf("answered %v, want %v", got, names)
	}
	for i, a := range got {
		if a.topic != names[i] || a.code != code || a.msg == nil || *a.msg != msg {
			t.Errorf("topic %d: %s error %d %v, want %s error %d %q", i, a.topic, a.code, a.msg, names[i], code, msg)
		}
	}
}

// refusedWholeWithin runs req at version v both validate-only and not and
// checks each run allocates little and refuses every topic with code and
// msg.
func refusedWholeWithin[Req interface {
	kmsg.Request
	*kmsg.CreateTopicsRequest | *kmsg.CreatePartitionsRequest
}](t *testing.T, f *adminFixture, req Req, v int16, code int16, msg string) {
	t.Helper()
	for _, validateOnly := range []bool{true, false} {
		var names []string
		var got []answer
		var resp kmsg.Response
		switch r := any(req).(type) {
		case *kmsg.CreateTopicsRequest:
			r.ValidateOnly = validateOnly
			for _, rt := range r.Topics {
				names = append(names, rt.Topic)
			}
		case *kmsg.CreatePartitionsRequest:
			r.ValidateOnly = validateOnly
			for _, rt := range r.Topics {
				names = append(names, rt.Topic)
			}
		}
		if n := allocatedBy(func() { resp = f.call(req, v) }); n > maxCapAllocation {
			t.Errorf("validate_only=%v: refusing allocated %d bytes", validateOnly, n)
		}
		switch r := resp.(type) {
		case *kmsg.CreateTopicsResponse:
			for _, rt := range r.Topics {
				got = append(got, answer{rt.Topic, rt.ErrorCode, rt.ErrorMessage})
			}
		case *kmsg.CreatePartitionsResponse:
			for _, rt := range r.Topics {
				got = append(got, answer{rt.Topic, rt.ErrorCode, rt.ErrorMessage})
			}
		}
		wantRefusedWhole(t, names, got, code, msg)
	}
}

func TestCreateTopicsRefusesTooManyPartitionsBeforeSizingAnything(t *testing.T) {
	f := newAdminFixture(t, nil)
	const msg = "Excessively large number of partitions per request."
	for _, c := range []struct {
		name   string
		topics []kmsg.CreateTopicsRequestTopic
	}{
		{"int32 max", []kmsg.CreateTopicsRequestTopic{createTopicsTopic("huge", math.MaxInt32)}},
		{"hundred million", []kmsg.CreateTopicsRequestTopic{createTopicsTopic("big", 100_000_000), createTopicsTopic("small", 1)}},
		// Two topics at int32 max would wrap a 32-bit sum negative.
		{"sum past int32", []kmsg.CreateTopicsRequestTopic{createTopicsTopic("a", math.MaxInt32), createTopicsTopic("b", math.MaxInt32)}},
		// Names given twice are not counted, but answered like the rest.
		{"sum over the cap", []kmsg.CreateTopicsRequestTopic{createTopicsTopic("c", 5000), createTopicsTopic("x", 1), createTopicsTopic("d", 5001), createTopicsTopic("x", 1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := kmsg.NewPtrCreateTopicsRequest()
			req.Topics = c.topics
			refusedWholeWithin(t, f, req, 7, kerr.PolicyViolation.Code, msg)
			if n := len(f.store.Image().Topics()); n != 0 {
				t.Errorf("%d topics exist after a refused request", n)
			}
		})
	}
}

func TestCreateTopicsAtThePartitionCapIsNotRefusedWhole(t *testing.T) {
	f := newAdminFixture(t, nil)
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Topics = []kmsg.CreateTopicsRequestTopic{createTopicsTopic("c", 5000), createTopicsTopic("d", 5000), createTopicsTopic("e", 9000), createTopicsTopic("e", 9000)}
	req.ValidateOnly = true
	resp := f.call(req, 7).(*kmsg.CreateTopicsResponse)
	want := map[string]int16{"c": 0, "d": 0, "e": kerr.InvalidRequest.Code}
	for _, rt := range resp.Topics {
		if rt.ErrorCode != want[rt.Topic] {
			t.Errorf("%s: error %d %v, want %d", rt.Topic, rt.ErrorCode, rt.ErrorMessage, want[rt.Topic])
		}
	}
}

func TestCreateTopicsAssignmentIndexesAreNotSizes(t *testing.T) {
	f := newAdminFixture(t, nil)
	assignment := func(partitions ...int32) kmsg.CreateTopicsRequestTopic {
		rt := createTopicsTopic("assigned", -1)
		rt.ReplicationFactor = -1
		for _, p := range partitions {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = p, []int32{1}
			rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
		}
		return rt
	}
	for _, c := range []struct {
		name       string
		partitions []int32
		msg        string
	}{
		{"index int32 max", []int32{0, math.MaxInt32}, "partitions should be a consecutive 0-based integer sequence"},
		{"negative index", []int32{-1}, "partitions should be a consecutive 0-based integer sequence"},
		{"gap", []int32{0, 2}, "partitions should be a consecutive 0-based integer sequence"},
		{"twice", []int32{0, 0}, "Found multiple manual partition assignments for partition 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := kmsg.NewPtrCreateTopicsRequest()
			req.Topics = []kmsg.CreateTopicsRequestTopic{assignment(c.partitions...)}
			var resp *kmsg.CreateTopicsResponse
			if n := allocatedBy(func() { resp = f.call(req, 7).(*kmsg.CreateTopicsResponse) }); n > maxCapAllocation {
				t.Errorf("allocated %d bytes", n)
			}
			rt := resp.Topics[0]
			if rt.ErrorCode != kerr.InvalidReplicaAssignment.Code || rt.ErrorMessage == nil || *rt.ErrorMessage != c.msg {
				t.Errorf("error %d %v, want INVALID_REPLICA_ASSIGNMENT %q", rt.ErrorCode, rt.ErrorMessage, c.msg)
			}
		})
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Topics = []kmsg.CreateTopicsRequestTopic{assignment(1, 0)}
	if rt := f.call(req, 7).(*kmsg.CreateTopicsResponse).Topics[0]; rt.ErrorCode != 0 || rt.NumPartitions != 2 {
		t.Fatalf("assignments out of order: error %d %v, %d partitions", rt.ErrorCode, rt.ErrorMessage, rt.NumPartitions)
	}
}

func TestCreatePartitionsRefusesTooManyBeforeSizingAnything(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.createTopic("u", 1, nil)
	const msg = "Unable to perform excessively large batch operation."
	for _, c := range []struct {
		name   string
		topics []kmsg.CreatePartitionsRequestTopic
	}{
		{"int32 max", []kmsg.CreatePartitionsRequestTopic{createPartitionsTopic("t", math.MaxInt32)}},
		{"hundred million", []kmsg.CreatePartitionsRequestTopic{createPartitionsTopic("t", 100_000_000), createPartitionsTopic("missing", 2)}},
		{"sum over the cap", []kmsg.CreatePartitionsRequestTopic{createPartitionsTopic("t", 5002), createPartitionsTopic("u", 5001)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := kmsg.NewPtrCreatePartitionsRequest()
			req.Topics = c.topics
			refusedWholeWithin(t, f, req, 3, kerr.PolicyViolation.Code, msg)
			for _, name := range []string{"t", "u"} {
				if tp, _ := f.store.Image().Topic(name); len(tp.Partitions) != 1 {
					t.Errorf("%s has %d partitions after a refused request", name, len(tp.Partitions))
				}
			}
		})
	}
}
