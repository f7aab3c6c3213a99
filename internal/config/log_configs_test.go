package config

import "testing"

// dynamicConfigs is a DynamicConfigs as the metadata image holds them.
type dynamicConfigs map[string]map[string]string

func (d dynamicConfigs) TopicConfigs(topic string) map[string]string { return d["topic:"+topic] }
func (d dynamicConfigs) BrokerConfigs(name string) map[string]string { return d["broker:"+name] }

// TestLogConfigsResolveOnceAndAgainOnEveryLayerChange: a topic's log
// config is resolved once and shared while its layers stay the same, and
// resolved again when the topic's overrides, the cluster-wide dynamic
// default or this broker's dynamic config change, each taking its place
// in the precedence order.
func TestLogConfigsResolveOnceAndAgainOnEveryLayerChange(t *testing.T) {
	static, _, err := FromProperties(map[string]string{"node.id": "1", "log.retention.hours": "1", "compression.type": "snappy"})
	if err != nil {
		t.Fatal(err)
	}
	c := NewLogConfigs(static)
	dyn := dynamicConfigs{}
	first := c.Topic(dyn, "t")
	if first.RetentionMs != 3_600_000 || first.CompressionType != "snappy" {
		t.Fatalf("static layer: retention.ms %d, compression.type %s", first.RetentionMs, first.CompressionType)
	}
	if c.Topic(dyn, "t") != first || c.Topic(nil, "t") != first {
		t.Fatal("an unchanged topic was resolved again")
	}
	steps := []struct {
		name      string
		change    func()
		retention int64
		codec     string
	}{
		{"cluster default", func() {
			dyn["broker:"] = map[string]string{"log.retention.ms": "5000", "compression.type": "gzip"}
		}, 5000, "gzip"},
		{"this broker", func() { dyn["broker:1"] = map[string]string{"compression.type": "lz4"} }, 5000, "lz4"},
		{"another broker", func() { dyn["broker:2"] = map[string]string{"compression.type": "zstd"} }, 5000, "lz4"},
		{"topic override", func() { dyn["topic:t"] = map[string]string{"retention.ms": "7"} }, 7, "lz4"},
		{"unparsable override", func() { dyn["topic:t"] = map[string]string{"retention.ms": "soon", "compression.type": "zstd"} }, 5000, "zstd"},
		{"cluster default removed", func() { delete(dyn, "broker:"); delete(dyn, "topic:t") }, 3_600_000, "lz4"},
	}
	prev := first
	for _, s := range steps {
		s.change()
		got := c.Topic(dyn, "t")
		if got.RetentionMs != s.retention || got.CompressionType != s.codec {
			t.Errorf("%s: retention.ms %d, compression.type %s; want %d, %s", s.name, got.RetentionMs, got.CompressionType, s.retention, s.codec)
		}
		if changed := got != prev; changed != (s.name != "another broker") {
			t.Errorf("%s: resolved again %v", s.name, changed)
		}
		prev = got
	}
	if b := c.Broker(dyn); b.String("compression.type") != "lz4" {
		t.Errorf("broker compression.type %s, want this broker's lz4", b.String("compression.type"))
	}
}
