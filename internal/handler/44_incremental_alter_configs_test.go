package handler

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type alterOp struct {
	key   string
	op    kmsg.IncrementalAlterConfigOp
	value *string
}

func incrementalResource(resType kmsg.ConfigResourceType, name string, ops ...alterOp) kmsg.IncrementalAlterConfigsRequestResource {
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = resType, name
	for _, o := range ops {
		rr.Configs = append(rr.Configs, kmsg.IncrementalAlterConfigsRequestResourceConfig{Name: o.key, Op: o.op, Value: o.value})
	}
	return rr
}

func incrementalAlter(f *adminFixture, validateOnly bool, resources ...kmsg.IncrementalAlterConfigsRequestResource) []kmsg.IncrementalAlterConfigsResponseResource {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.ValidateOnly = validateOnly
	req.Resources = resources
	return f.call(req, 1).(*kmsg.IncrementalAlterConfigsResponse).Resources
}

func set(key, value string) alterOp  { return alterOp{key, kmsg.IncrementalAlterConfigOpSet, &value} }
func del(key string) alterOp         { return alterOp{key, kmsg.IncrementalAlterConfigOpDelete, nil} }
func appendOp(key, v string) alterOp { return alterOp{key, kmsg.IncrementalAlterConfigOpAppend, &v} }
func subtract(key, v string) alterOp { return alterOp{key, kmsg.IncrementalAlterConfigOpSubtract, &v} }

func TestIncrementalAlterTopicConfigs(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, map[string]*string{"segment.bytes": strp("1048576")})
	got := incrementalAlter(f, false, incrementalResource(kmsg.ConfigResourceTypeTopic, "t",
		set("retention.ms", "3600000"), del("segment.bytes"), appendOp("cleanup.policy", "compact")))
	if got[0].ErrorCode != 0 {
		t.Fatalf("alter: %d %v", got[0].ErrorCode, *got[0].ErrorMessage)
	}
	cfgs := f.store.Image().TopicConfigs("t")
	if cfgs["retention.ms"] != "3600000" || cfgs["cleanup.policy"] != "delete,compact" || len(cfgs) != 2 {
		t.Fatalf("configs after alter: %v", cfgs)
	}
	got = incrementalAlter(f, false, incrementalResource(kmsg.ConfigResourceTypeTopic, "t", subtract("cleanup.policy", "delete")))
	if got[0].ErrorCode != 0 || f.store.Image().TopicConfigs("t")["cleanup.policy"] != "compact" {
		t.Fatalf("subtract: %+v %v", got[0], f.store.Image().TopicConfigs("t"))
	}
}

func TestIncrementalAlterTopicConfigsRefusals(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	for _, c := range []struct {
		name    string
		res     kmsg.IncrementalAlterConfigsRequestResource
		code    int16
		message string
	}{
		{"unknown key", incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("no.such.key", "1")), kerr.InvalidConfig.Code, "Unknown topic config name: no.such.key"},
		{"bad value", incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("retention.ms", "soon")), kerr.InvalidConfig.Code, "Invalid value soon for configuration retention.ms"},
		{"append to a non-list", incrementalResource(kmsg.ConfigResourceTypeTopic, "t", appendOp("retention.ms", "1")), kerr.InvalidConfig.Code, "because its type is not LIST"},
		{"key twice", incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("retention.ms", "1"), del("retention.ms")), kerr.InvalidRequest.Code, "duplicate config keys"},
		{"null set", incrementalResource(kmsg.ConfigResourceTypeTopic, "t", alterOp{"retention.ms", kmsg.IncrementalAlterConfigOpSet, nil}), kerr.InvalidRequest.Code, "Null value"},
		{"missing topic", incrementalResource(kmsg.ConfigResourceTypeTopic, "nope", set("retention.ms", "1")), kerr.UnknownTopicOrPartition.Code, "The topic 'nope' does not exist."},
		{"unknown resource type", incrementalResource(3, "x", set("a", "b")), kerr.UnsupportedVersion.Code, "Unknown resource type"},
		{"the default group", incrementalResource(32, "", set("consumer.session.timeout.ms", "50000")), kerr.InvalidRequest.Code, "Default group resources are not allowed."},
	} {
		got := incrementalAlter(f, false, c.res)
		if len(got) != 1 || got[0].ErrorCode != c.code || got[0].ErrorMessage == nil || !strings.Contains(*got[0].ErrorMessage, c.message) {
			msg := "<nil>"
			if len(got) == 1 && got[0].ErrorMessage != nil {
				msg = *got[0].ErrorMessage
			}
			t.Errorf("%s: got %+v (%s), want code %d with %q", c.name, got, msg, c.code, c.message)
		}
	}
	if cfgs := f.store.Image().TopicConfigs("t"); len(cfgs) != 0 {
		t.Fatalf("refused changes were applied: %v", cfgs)
	}
}

func TestIncrementalAlterConfigsDuplicateResourceAndValidateOnly(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.createTopic("u", 1, nil)
	got := incrementalAlter(f, false,
		incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("retention.ms", "1")),
		incrementalResource(kmsg.ConfigResourceTypeTopic, "u", set("retention.ms", "2")),
		incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("retention.ms", "3")))
	if len(got) != 2 || got[0].ResourceName != "t" || got[0].ErrorCode != kerr.InvalidRequest.Code || got[1].ErrorCode != 0 {
		t.Fatalf("duplicate resource: %+v", got)
	}
	if len(f.store.Image().TopicConfigs("t")) != 0 || f.store.Image().TopicConfigs("u")["retention.ms"] != "2" {
		t.Fatal("duplicate resource was applied, or the other one was not")
	}
	got = incrementalAlter(f, true, incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("retention.ms", "5")))
	if got[0].ErrorCode != 0 || len(f.store.Image().TopicConfigs("t")) != 0 {
		t.Fatalf("validate_only: %+v, configs %v", got, f.store.Image().TopicConfigs("t"))
	}
	got = incrementalAlter(f, true, incrementalResource(kmsg.ConfigResourceTypeTopic, "t", set("retention.ms", "x")))
	if got[0].ErrorCode != kerr.InvalidConfig.Code {
		t.Fatalf("validate_only of a bad value: %+v", got)
	}
}

func TestIncrementalAlterBrokerConfigs(t *testing.T) {
	f := newAdminFixture(t, nil)
	got := incrementalAlter(f, false,
		incrementalResource(kmsg.ConfigResourceTypeBroker, "", set("log.retention.ms", "7200000")),
		incrementalResource(kmsg.ConfigResourceTypeBroker, "1", set("log.cleaner.threads", "2")))
	for _, r := range got {
		if r.ErrorCode != 0 {
			t.Fatalf("%q: %d %s", r.ResourceName, r.ErrorCode, *r.ErrorMessage)
		}
	}
	img := f.store.Image()
	if img.BrokerConfigs("")["log.retention.ms"] != "7200000" || img.BrokerConfigs("1")["log.cleaner.threads"] != "2" {
		t.Fatalf("broker configs %v %v", img.BrokerConfigs(""), img.BrokerConfigs("1"))
	}
	for _, c := range []struct {
		name, resource string
		op             alterOp
		message        string
	}{
		{"read-only key", "1", set("num.partitions", "3"), "Cannot update these configs dynamically: [num.partitions]"},
		{"another broker", "2", set("log.cleaner.threads", "2"), "Unexpected broker id, expected 1, but received 2"},
		{"not a number", "one", set("log.cleaner.threads", "2"), "must be an integer"},
		{"bad value", "", set("log.retention.ms", "forever"), "Invalid value forever"},
	} {
		got := incrementalAlter(f, false, incrementalResource(kmsg.ConfigResourceTypeBroker, c.resource, c.op))
		if got[0].ErrorCode != kerr.InvalidRequest.Code || got[0].ErrorMessage == nil || !strings.Contains(*got[0].ErrorMessage, c.message) {
			t.Errorf("%s: %+v, want INVALID_REQUEST with %q", c.name, got[0], c.message)
		}
	}
	// DeleteRecords follows a cluster-wide cleanup policy.
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 2, 0)
	incrementalAlter(f, false, incrementalResource(kmsg.ConfigResourceTypeBroker, "", set("log.cleanup.policy", "compact")))
	if p := deleteRecords(f, "t", map[int32]int64{0: 1})[0]; p.ErrorCode != kerr.PolicyViolation.Code {
		t.Fatalf("delete records under a compact broker default: %+v", p)
	}
}
