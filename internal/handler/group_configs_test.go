package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func alterResource(f *adminFixture, resType kmsg.ConfigResourceType, name string, kv ...string) kmsg.IncrementalAlterConfigsResponseResource {
	f.t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = resType, name
	for i := 0; i+1 < len(kv); i += 2 {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = kv[i], &kv[i+1]
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	resp := f.call(req, 1).(*kmsg.IncrementalAlterConfigsResponse)
	if len(resp.Resources) != 1 {
		f.t.Fatalf("resources %+v", resp.Resources)
	}
	return resp.Resources[0]
}

func describeResource(f *adminFixture, resType kmsg.ConfigResourceType, name string, keys ...string) kmsg.DescribeConfigsResponseResource {
	f.t.Helper()
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms = true
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName, res.ConfigNames = resType, name, keys
	req.Resources = append(req.Resources, res)
	resp := f.call(req, 4).(*kmsg.DescribeConfigsResponse)
	if len(resp.Resources) != 1 {
		f.t.Fatalf("resources %+v", resp.Resources)
	}
	return resp.Resources[0]
}

func TestGroupConfigsStoredAndDescribed(t *testing.T) {
	f := newAdminFixture(t, nil)
	if r := alterResource(f, kmsg.ConfigResourceTypeGroupConfig, "g1", "consumer.session.timeout.ms", "50000"); r.ErrorCode != 0 {
		t.Fatalf("alter: %d %v", r.ErrorCode, r.ErrorMessage)
	}
	got := f.store.Image().Configs(metadata.ConfigResource{Type: metadata.ConfigResourceGroup, Name: "g1"})
	if got["consumer.session.timeout.ms"] != "50000" {
		t.Fatalf("stored %v", got)
	}
	d := describeResource(f, kmsg.ConfigResourceTypeGroupConfig, "g1", "consumer.session.timeout.ms")
	if d.ErrorCode != 0 || len(d.Configs) != 1 {
		t.Fatalf("describe %+v", d)
	}
	c := d.Configs[0]
	if *c.Value != "50000" || c.Source != kmsg.ConfigSourceGroupConfig || len(c.ConfigSynonyms) != 2 || c.ConfigSynonyms[1].Name != "group.consumer.session.timeout.ms" {
		t.Fatalf("config %+v", c)
	}
	if d := describeResource(f, kmsg.ConfigResourceTypeGroupConfig, "nobody"); d.ErrorCode != 0 || len(d.Configs) != 21 {
		t.Fatalf("a group with no configs: error %d, %d configs", d.ErrorCode, len(d.Configs))
	}
}

func TestGroupConfigsRefusedAsKafka(t *testing.T) {
	f := newAdminFixture(t, nil)
	for _, c := range []struct {
		name, key, value string
		code             int16
		msg              string
	}{
		{"g1", "consumer.session.timeout.ms", "70000", kerr.InvalidConfig.Code, "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{"g1", "bogus.key", "1", kerr.InvalidConfig.Code, "Unknown group config name: bogus.key"},
		{"", "consumer.heartbeat.interval.ms", "6000", kerr.InvalidRequest.Code, "Default group resources are not allowed."},
	} {
		r := alterResource(f, kmsg.ConfigResourceTypeGroupConfig, c.name, c.key, c.value)
		if r.ErrorCode != c.code || r.ErrorMessage == nil || *r.ErrorMessage != c.msg {
			t.Errorf("%s=%s: %d %v, want %d %q", c.key, c.value, r.ErrorCode, r.ErrorMessage, c.code, c.msg)
		}
	}
	if d := describeResource(f, kmsg.ConfigResourceTypeGroupConfig, ""); d.ErrorCode != kerr.InvalidRequest.Code || d.ErrorMessage == nil || *d.ErrorMessage != "Group name must not be empty" {
		t.Fatalf("describe of the default group: %d %v", d.ErrorCode, d.ErrorMessage)
	}
	if len(f.store.Image().Configs(metadata.ConfigResource{Type: metadata.ConfigResourceGroup, Name: "g1"})) != 0 {
		t.Fatal("a refused change was stored")
	}
}
