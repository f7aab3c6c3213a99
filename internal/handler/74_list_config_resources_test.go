package handler

import (
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestClientMetricsConfigsAsKafka(t *testing.T) {
	f := newAdminFixture(t, nil)
	if r := alterResource(f, kmsg.ConfigResourceTypeClientMetrics, "cm1", "metrics", "org.apache.kafka.producer.", "interval.ms", "10000"); r.ErrorCode != 0 {
		t.Fatalf("alter: %d %v", r.ErrorCode, r.ErrorMessage)
	}
	for _, c := range []struct {
		name string
		kv   []string
		code int16
		msg  string
	}{
		{"cm3", []string{"interval.ms", "50"}, kerr.InvalidRequest.Code, "Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)"},
		{"cm3", []string{"match", "bogus=1"}, kerr.InvalidConfig.Code, "Illegal client matching pattern: bogus=1"},
		{"cm3", []string{"match", "client_id=[["}, kerr.InvalidConfig.Code, "Illegal client matching pattern: client_id=[["},
		{"cm3", []string{"bogus", "1"}, kerr.InvalidRequest.Code, "Unknown client metrics configuration: bogus"},
		{"", []string{"metrics", "*"}, kerr.InvalidRequest.Code, "Subscription name can't be empty"},
	} {
		r := alterResource(f, kmsg.ConfigResourceTypeClientMetrics, c.name, c.kv...)
		if r.ErrorCode != c.code || r.ErrorMessage == nil || *r.ErrorMessage != c.msg {
			t.Errorf("%v: %d %v, want %d %q", c.kv, r.ErrorCode, r.ErrorMessage, c.code, c.msg)
		}
	}
	d := describeResource(f, kmsg.ConfigResourceTypeClientMetrics, "cm1")
	if d.ErrorCode != 0 || len(d.Configs) != 3 {
		t.Fatalf("describe %+v", d)
	}
	want := []struct{ name, value string }{{"interval.ms", "10000"}, {"match", ""}, {"metrics", "org.apache.kafka.producer."}}
	for i, w := range want {
		c := d.Configs[i]
		if c.Name != w.name || *c.Value != w.value {
			t.Errorf("config %d: %s=%s, want %s=%s", i, c.Name, *c.Value, w.name, w.value)
		}
	}
	if d.Configs[0].Source != kmsg.ConfigSourceClientMetricsConfig || d.Configs[1].Source != kmsg.ConfigSourceDefaultConfig || len(d.Configs[1].ConfigSynonyms) != 0 {
		t.Fatalf("sources %+v", d.Configs)
	}
	if d := describeResource(f, kmsg.ConfigResourceTypeClientMetrics, ""); d.ErrorCode != kerr.InvalidRequest.Code || *d.ErrorMessage != "Client metrics subscription name must not be empty" {
		t.Fatalf("describe of the empty name: %d %v", d.ErrorCode, d.ErrorMessage)
	}
}

func TestListConfigResourcesByVersionAndType(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("tp1", 1, nil)
	alterResource(f, kmsg.ConfigResourceTypeClientMetrics, "cm1", "interval.ms", "1000")
	alterResource(f, kmsg.ConfigResourceTypeGroupConfig, "g1", "consumer.session.timeout.ms", "50000")
	list := func(v int16, types ...int8) *kmsg.ListConfigResourcesResponse {
		req := kmsg.NewPtrListConfigResourcesRequest()
		req.ResourceTypes = types
		return f.call(req, v).(*kmsg.ListConfigResourcesResponse)
	}
	render := func(resp *kmsg.ListConfigResourcesResponse) []string {
		var out []string
		for _, r := range resp.ConfigResources {
			out = append(out, strconv.Itoa(int(r.Type))+":"+r.Name)
		}
		return out
	}
	if got := render(list(0)); len(got) != 1 || got[0] != "16:cm1" {
		t.Fatalf("v0: %v", got)
	}
	// Kafka 4.4.0's order: groups, client metrics, broker logger, broker, topics.
	if got := render(list(1)); len(got) != 5 || got[0] != "32:g1" || got[1] != "16:cm1" || got[2] != "8:1" || got[3] != "4:1" || got[4] != "2:tp1" {
		t.Fatalf("v1 all: %v", got)
	}
	if got := render(list(1, 2, 2)); len(got) != 1 || got[0] != "2:tp1" {
		t.Fatalf("v1 topics: %v", got)
	}
	if resp := list(1, 99); resp.ErrorCode != kerr.UnsupportedVersion.Code || resp.ConfigResources != nil {
		t.Fatalf("unknown type: %+v", resp)
	}
}
