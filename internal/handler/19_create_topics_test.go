package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCreateTopicsAnswersTheEffectiveConfig: from v5 a created topic is
// answered with every topic config in effect and its source (Kafka 4.4
// answers 37 entries), not only the keys the request set.
func TestCreateTopicsAnswersTheEffectiveConfig(t *testing.T) {
	f := newAdminFixture(t, nil)
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = "t", 1, 1
	c := kmsg.NewCreateTopicsRequestTopicConfig()
	c.Name, c.Value = "retention.ms", strp("1000")
	rt.Configs = append(rt.Configs, c)
	req.Topics = append(req.Topics, rt)
	resp := f.call(req, 7).(*kmsg.CreateTopicsResponse)
	got := map[string]kmsg.CreateTopicsResponseTopicConfig{}
	for _, c := range resp.Topics[0].Configs {
		got[c.Name] = c
	}
	if len(got) != 37 {
		t.Fatalf("%d configs answered, want every topic config (Kafka 4.4: 37)", len(got))
	}
	if d := got["max.decompressed.message.bytes"]; d.Value == nil || *d.Value != "2147483639" || d.Source != int8(kmsg.ConfigSourceDefaultConfig) {
		t.Fatalf("max.decompressed.message.bytes answered %+v, want Kafka 4.4's default", d)
	}
	if r := got["retention.ms"]; r.Value == nil || *r.Value != "1000" || r.Source != int8(kmsg.ConfigSourceDynamicTopicConfig) {
		t.Fatalf("retention.ms answered %+v, want 1000 from the topic", r)
	}
	if s := got["segment.bytes"]; s.Value == nil || *s.Value != "1073741824" || s.Source != int8(kmsg.ConfigSourceDefaultConfig) {
		t.Fatalf("segment.bytes answered %+v, want Kafka's default", s)
	}
}

// TestCreateTopicsRefusedTopicAnswersEmptyConfigs: a topic CreateTopics refuses (it exists, zero
// partitions, the replication factor is too high) is answered from v5 with an empty
// config list, not a null one, as Kafka 4.4 does. (Config values are validated by the node's
// schema, which this fixture has not; the differential suite covers them.)
func TestCreateTopicsRefusedTopicAnswersEmptyConfigs(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("exists", 1, nil)
	for _, topic := range []struct {
		name        string
		partitions  int32
		replication int16
	}{{"exists", 1, 1}, {"zero", 0, 1}, {"rf3", 1, 3}} {
		req := kmsg.NewPtrCreateTopicsRequest()
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic.name, topic.partitions, topic.replication
		req.Topics = append(req.Topics, rt)
		out := f.call(req, 5).(*kmsg.CreateTopicsResponse).Topics[0]
		if out.ErrorCode == 0 || out.Configs == nil || len(out.Configs) != 0 {
			t.Errorf("%s: error %d, configs %v (null=%v); want an error and an empty list", topic.name, out.ErrorCode, out.Configs, out.Configs == nil)
		}
	}
}
