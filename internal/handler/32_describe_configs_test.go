package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func describeConfigs(f *adminFixture, v int16, synonyms, docs bool, resType kmsg.ConfigResourceType, name string, keys ...string) kmsg.DescribeConfigsResponseResource {
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms, req.IncludeDocumentation = synonyms, docs
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType, rr.ResourceName, rr.ConfigNames = resType, name, keys
	req.Resources = append(req.Resources, rr)
	return f.call(req, v).(*kmsg.DescribeConfigsResponse).Resources[0]
}

func configNamed(t *testing.T, r kmsg.DescribeConfigsResponseResource, name string) kmsg.DescribeConfigsResponseResourceConfig {
	t.Helper()
	for _, c := range r.Configs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s among %d configs", name, len(r.Configs))
	return kmsg.DescribeConfigsResponseResourceConfig{}
}

func TestDescribeTopicConfigs(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, map[string]*string{"retention.ms": strp("60000")})
	incrementalAlter(f, false, incrementalResource(kmsg.ConfigResourceTypeBroker, "", set("log.retention.ms", "7200000")))

	r := describeConfigs(f, 4, true, true, kmsg.ConfigResourceTypeTopic, "t")
	if r.ErrorCode != 0 || len(r.Configs) < 30 {
		t.Fatalf("error %d, %d configs", r.ErrorCode, len(r.Configs))
	}
	ret := configNamed(t, r, "retention.ms")
	if *ret.Value != "60000" || ret.Source != kmsg.ConfigSourceDynamicTopicConfig || ret.ReadOnly || ret.IsSensitive || ret.ConfigType != kmsg.ConfigTypeLong || ret.Documentation == nil {
		t.Fatalf("retention.ms %+v", ret)
	}
	want := []struct {
		name   string
		source kmsg.ConfigSource
	}{{"retention.ms", kmsg.ConfigSourceDynamicTopicConfig}, {"log.retention.ms", kmsg.ConfigSourceDynamicDefaultBrokerConfig}, {"log.retention.hours", kmsg.ConfigSourceDefaultConfig}}
	if len(ret.ConfigSynonyms) != len(want) {
		t.Fatalf("synonyms %+v", ret.ConfigSynonyms)
	}
	for i, w := range want {
		if s := ret.ConfigSynonyms[i]; s.Name != w.name || s.Source != w.source {
			t.Fatalf("synonym %d: %s %v, want %s %v", i, s.Name, s.Source, w.name, w.source)
		}
	}
	cp := configNamed(t, r, "cleanup.policy")
	if *cp.Value != "delete" || cp.Source != kmsg.ConfigSourceDefaultConfig || cp.ConfigType != kmsg.ConfigTypeList {
		t.Fatalf("cleanup.policy %+v", cp)
	}

	// Without synonyms and documentation, at v1, restricted to one key.
	r = describeConfigs(f, 1, false, false, kmsg.ConfigResourceTypeTopic, "t", "retention.ms")
	if len(r.Configs) != 1 || len(r.Configs[0].ConfigSynonyms) != 0 || r.Configs[0].Documentation != nil {
		t.Fatalf("restricted %+v", r.Configs)
	}
	// The cluster default reaches a topic without an override.
	f.createTopic("plain", 1, nil)
	r = describeConfigs(f, 2, false, false, kmsg.ConfigResourceTypeTopic, "plain", "retention.ms")
	if c := r.Configs[0]; *c.Value != "7200000" || c.Source != kmsg.ConfigSourceDynamicDefaultBrokerConfig {
		t.Fatalf("inherited retention.ms %+v", c)
	}
}

func TestDescribeConfigsErrors(t *testing.T) {
	f := newAdminFixture(t, nil)
	for _, c := range []struct {
		name    string
		resType kmsg.ConfigResourceType
		rname   string
		code    int16
	}{
		{"missing topic", kmsg.ConfigResourceTypeTopic, "nope", kerr.UnknownTopicOrPartition.Code},
		{"illegal topic name", kmsg.ConfigResourceTypeTopic, "a/b", kerr.InvalidTopicException.Code},
		{"another broker", kmsg.ConfigResourceTypeBroker, "2", kerr.InvalidRequest.Code},
		{"non-numeric broker", kmsg.ConfigResourceTypeBroker, "x", kerr.InvalidRequest.Code},
		{"the default group", 32, "", kerr.InvalidRequest.Code},
	} {
		r := describeConfigs(f, 4, false, false, c.resType, c.rname)
		if r.ErrorCode != c.code || len(r.Configs) != 0 || r.ResourceName != c.rname {
			t.Errorf("%s: %+v, want code %d", c.name, r, c.code)
		}
	}
}

func TestDescribeBrokerConfigs(t *testing.T) {
	f := newAdminFixture(t, nil)
	incrementalAlter(f, false,
		incrementalResource(kmsg.ConfigResourceTypeBroker, "", set("log.retention.ms", "7200000")),
		incrementalResource(kmsg.ConfigResourceTypeBroker, "1", set("log.cleaner.threads", "2")))

	r := describeConfigs(f, 4, true, false, kmsg.ConfigResourceTypeBroker, "1")
	if r.ErrorCode != 0 || len(r.Configs) < 50 {
		t.Fatalf("error %d, %d configs", r.ErrorCode, len(r.Configs))
	}
	threads := configNamed(t, r, "log.cleaner.threads")
	if *threads.Value != "2" || threads.Source != kmsg.ConfigSourceDynamicBrokerConfig || threads.ReadOnly {
		t.Fatalf("log.cleaner.threads %+v", threads)
	}
	parts := configNamed(t, r, "num.partitions")
	if !parts.ReadOnly || parts.Source != kmsg.ConfigSourceDefaultConfig || parts.ConfigType != kmsg.ConfigTypeInt {
		t.Fatalf("num.partitions %+v", parts)
	}
	ret := configNamed(t, r, "log.retention.ms")
	if *ret.Value != "7200000" || ret.Source != kmsg.ConfigSourceDynamicDefaultBrokerConfig {
		t.Fatalf("log.retention.ms %+v", ret)
	}

	// The cluster defaults: the one set here and the min.insync.replicas
	// that bootstrapping with eligible leader replicas writes, as Kafka 4.4.
	r = describeConfigs(f, 3, true, false, kmsg.ConfigResourceTypeBroker, "")
	if r.ErrorCode != 0 || len(r.Configs) != 2 || r.Configs[0].Name != "log.retention.ms" || r.Configs[1].Name != "min.insync.replicas" || *r.Configs[1].Value != "1" {
		t.Fatalf("cluster defaults %+v", r.Configs)
	}
}
