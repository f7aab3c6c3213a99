package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// overTheWire encodes req at version v and decodes it again, as the
// broker receives it, so a field v lacks does not reach the handler.
func overTheWire(t *testing.T, req kmsg.Request, v int16) kmsg.Request {
	t.Helper()
	req.SetVersion(v)
	out := kmsg.RequestForKey(req.Key())
	out.SetVersion(v)
	if err := out.ReadFrom(req.AppendTo(nil)); err != nil {
		t.Fatalf("%s v%d: %v", kmsg.NameForKey(req.Key()), v, err)
	}
	return out
}

// answerOverTheWire encodes a response at its version and decodes it, as
// the client reads it.
func answerOverTheWire(t *testing.T, resp kmsg.Response, v int16) kmsg.Response {
	t.Helper()
	resp.SetVersion(v)
	out := kmsg.ResponseForKey(resp.Key())
	out.SetVersion(v)
	if err := out.ReadFrom(resp.AppendTo(nil)); err != nil {
		t.Fatalf("%s v%d answer: %v", kmsg.NameForKey(resp.Key()), v, err)
	}
	return out
}

func (f *adminFixture) callWire(req kmsg.Request, v int16) kmsg.Response {
	f.t.Helper()
	return answerOverTheWire(f.t, f.call(overTheWire(f.t, req, v), v), v)
}

// TestAdminAPIsAtTheVersionsKafka4Removed: CreateTopics v0-1, DeleteTopics
// v0, OffsetForLeaderEpoch v0-1, DescribeConfigs v0, DescribeLogDirs v0
// and AlterReplicaLogDirs v0 answer in their versions' shapes with the
// semantics of the versions after them.
func TestAdminAPIsAtTheVersionsKafka4Removed(t *testing.T) {
	f := newAdminFixture(t, nil)

	create := kmsg.NewPtrCreateTopicsRequest()
	for _, name := range []string{"v0-topic", "v1-dry-run"} {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, 2, 1
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = "retention.ms", strp("1000")
		rt.Configs = append(rt.Configs, c)
		create.Topics = append(create.Topics, rt)
	}
	create.Topics = create.Topics[:1]
	if got := f.callWire(create, 0).(*kmsg.CreateTopicsResponse); got.Topics[0].ErrorCode != 0 {
		t.Fatalf("CreateTopics v0: %+v", got.Topics)
	}
	create.Topics[0].Topic, create.ValidateOnly = "v1-dry-run", true
	if got := f.callWire(create, 1).(*kmsg.CreateTopicsResponse); got.Topics[0].ErrorCode != 0 {
		t.Fatalf("CreateTopics v1: %+v", got.Topics)
	}
	if _, ok := f.b.image().Topic("v1-dry-run"); ok {
		t.Fatal("CreateTopics v1 validate_only created the topic")
	}
	if tp, ok := f.b.image().Topic("v0-topic"); !ok || len(tp.Partitions) != 2 {
		t.Fatal("CreateTopics v0 did not create two partitions")
	}

	describe := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, "v0-topic"
	describe.Resources = append(describe.Resources, res)
	configs := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, c := range f.callWire(describe, 0).(*kmsg.DescribeConfigsResponse).Resources[0].Configs {
		configs[c.Name] = c
	}
	if r, s := configs["retention.ms"], configs["segment.bytes"]; r.Value == nil || *r.Value != "1000" || r.IsDefault || !s.IsDefault || len(r.ConfigSynonyms) != 0 {
		t.Fatalf("DescribeConfigs v0: retention.ms %+v segment.bytes default %v", r, s.IsDefault)
	}

	f.produce("v0-topic", 0, 3, 0)
	epochs := kmsg.NewPtrOffsetForLeaderEpochRequest()
	et := kmsg.NewOffsetForLeaderEpochRequestTopic()
	et.Topic = "v0-topic"
	ep := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	ep.Partition, ep.LeaderEpoch = 0, 0
	et.Partitions = append(et.Partitions, ep)
	epochs.Topics = append(epochs.Topics, et)
	for v, wantEpoch := range map[int16]int32{0: -1, 1: 0} {
		p := f.callWire(epochs, v).(*kmsg.OffsetForLeaderEpochResponse).Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.EndOffset != 3 || p.LeaderEpoch != wantEpoch {
			t.Fatalf("OffsetForLeaderEpoch v%d: %+v", v, p)
		}
	}

	dirs := f.callWire(kmsg.NewPtrDescribeLogDirsRequest(), 0).(*kmsg.DescribeLogDirsResponse)
	if len(dirs.Dirs) != 1 || dirs.Dirs[0].ErrorCode != 0 || len(dirs.Dirs[0].Topics) == 0 {
		t.Fatalf("DescribeLogDirs v0: %+v", dirs.Dirs)
	}

	alter := kmsg.NewPtrAlterReplicaLogDirsRequest()
	ad := kmsg.NewAlterReplicaLogDirsRequestDir()
	ad.Dir = "/no/such/log/dir"
	at := kmsg.NewAlterReplicaLogDirsRequestDirTopic()
	at.Topic, at.Partitions = "v0-topic", []int32{0}
	ad.Topics = append(ad.Topics, at)
	alter.Dirs = append(alter.Dirs, ad)
	if p := f.callWire(alter, 0).(*kmsg.AlterReplicaLogDirsResponse).Topics[0].Partitions[0]; p.ErrorCode != kerr.LogDirNotFound.Code {
		t.Fatalf("AlterReplicaLogDirs v0: %+v", p)
	}

	del := kmsg.NewPtrDeleteTopicsRequest()
	del.TopicNames, del.TimeoutMillis = []string{"v0-topic"}, 5000
	if got := f.callWire(del, 0).(*kmsg.DeleteTopicsResponse); got.Topics[0].ErrorCode != 0 {
		t.Fatalf("DeleteTopics v0: %+v", got.Topics)
	}
	if _, ok := f.b.image().Topic("v0-topic"); ok {
		t.Fatal("DeleteTopics v0 left the topic")
	}
}

// TestWriteTxnMarkersV0EndsATransaction: v0 is v1 before flexible versions.
func TestWriteTxnMarkersV0EndsATransaction(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 1, nil)
	f.appendTxnForFetch("t", 7000, 3, 2)
	if out := writeMarkersAt(f, 0, 0, 7000, 3, true, 5, "t", 0); out[0].ErrorCode != 0 {
		t.Fatalf("%+v", out[0])
	}
	if lso, leo := f.log("t", 0).LastStableOffset(), f.log("t", 0).LogEndOffset(); lso != 3 || leo != 3 {
		t.Fatalf("LSO %d log end %d after the commit marker", lso, leo)
	}
}
