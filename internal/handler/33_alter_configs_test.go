package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func alterConfigs(f *adminFixture, v int16, validateOnly bool, resType kmsg.ConfigResourceType, name string, kv ...string) kmsg.AlterConfigsResponseResource {
	req := kmsg.NewPtrAlterConfigsRequest()
	req.ValidateOnly = validateOnly
	rr := kmsg.NewAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = resType, name
	for i := 0; i+1 < len(kv); i += 2 {
		rr.Configs = append(rr.Configs, kmsg.AlterConfigsRequestResourceConfig{Name: kv[i], Value: strp(kv[i+1])})
	}
	req.Resources = append(req.Resources, rr)
	return f.call(req, v).(*kmsg.AlterConfigsResponse).Resources[0]
}

func TestAlterConfigsReplacesTheSet(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, map[string]*string{"retention.ms": strp("1000"), "segment.bytes": strp("1048576")})
	for v := int16(0); v <= 2; v++ {
		if r := alterConfigs(f, v, false, kmsg.ConfigResourceTypeTopic, "t", "segment.bytes", "2097152", "cleanup.policy", "compact"); r.ErrorCode != 0 {
			t.Fatalf("v%d: %+v", v, r)
		}
	}
	cfgs := f.store.Image().TopicConfigs("t")
	if len(cfgs) != 2 || cfgs["segment.bytes"] != "2097152" || cfgs["cleanup.policy"] != "compact" {
		t.Fatalf("configs %v", cfgs)
	}
	if r := alterConfigs(f, 1, false, kmsg.ConfigResourceTypeTopic, "t", "segment.bytes", "-5"); r.ErrorCode != kerr.InvalidConfig.Code {
		t.Fatalf("bad value: %+v", r)
	}
	if r := alterConfigs(f, 1, true, kmsg.ConfigResourceTypeTopic, "t"); r.ErrorCode != 0 || len(f.store.Image().TopicConfigs("t")) != 2 {
		t.Fatalf("validate_only emptying: %+v %v", r, f.store.Image().TopicConfigs("t"))
	}
	if r := alterConfigs(f, 1, false, kmsg.ConfigResourceTypeTopic, "t"); r.ErrorCode != 0 || len(f.store.Image().TopicConfigs("t")) != 0 {
		t.Fatalf("emptying: %+v %v", r, f.store.Image().TopicConfigs("t"))
	}
}

func TestAlterConfigsBroker(t *testing.T) {
	f := newAdminFixture(t, nil)
	if r := alterConfigs(f, 2, false, kmsg.ConfigResourceTypeBroker, "1", "log.cleaner.threads", "3", "message.max.bytes", "2000000"); r.ErrorCode != 0 {
		t.Fatalf("%+v %v", r, *r.ErrorMessage)
	}
	if r := alterConfigs(f, 2, false, kmsg.ConfigResourceTypeBroker, "1", "message.max.bytes", "3000000"); r.ErrorCode != 0 {
		t.Fatalf("%+v", r)
	}
	cfgs := f.store.Image().BrokerConfigs("1")
	if len(cfgs) != 1 || cfgs["message.max.bytes"] != "3000000" {
		t.Fatalf("broker configs %v", cfgs)
	}
}
