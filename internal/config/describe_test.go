package config

import (
	"fmt"
	"reflect"
	"testing"
)

// syn renders synonyms compactly: SOURCE:name=value.
func syn(ss []DescribedSynonym) []string {
	out := []string{}
	for _, s := range ss {
		v := "<nil>"
		if s.Value != nil {
			v = *s.Value
		}
		out = append(out, fmt.Sprintf("%s:%s=%s", s.Source, s.Name, v))
	}
	return out
}

func val(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func entry(t *testing.T, es []Entry, name string) Entry {
	t.Helper()
	for _, e := range es {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no entry %s", name)
	return Entry{}
}

func TestDescribeTopicSynonyms(t *testing.T) {
	static := mustBroker(t, map[string]string{"log.retention.minutes": "10", "log.retention.ms": "600000", "log.segment.bytes": "2097152"})
	b, err := static.WithDynamic(map[string]string{"log.retention.ms": "5"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		broker    *Broker
		overrides map[string]string
		key       string
		value     string
		source    Source
		synonyms  []string
	}{
		{"topic override first", b, map[string]string{"retention.ms": "7"}, "retention.ms", "7", SourceTopic,
			[]string{"DYNAMIC_TOPIC_CONFIG:retention.ms=7", "DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=5", "STATIC_BROKER_CONFIG:log.retention.ms=600000", "STATIC_BROKER_CONFIG:log.retention.minutes=10", "DEFAULT_CONFIG:log.retention.hours=168"}},
		{"dynamic default", b, nil, "retention.ms", "5", SourceDynamicDefaultBroker,
			[]string{"DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=5", "STATIC_BROKER_CONFIG:log.retention.ms=600000", "STATIC_BROKER_CONFIG:log.retention.minutes=10", "DEFAULT_CONFIG:log.retention.hours=168"}},
		// As in Kafka: when log.retention.ms is set nowhere, the synonym list
		// is cut before its first entry for log.retention.ms, so it is empty.
		{"primary synonym unset", Default(), nil, "retention.ms", "604800000", SourceDefault, []string{}},
		{"static", static, nil, "segment.bytes", "2097152", SourceStaticBroker,
			[]string{"STATIC_BROKER_CONFIG:log.segment.bytes=2097152", "DEFAULT_CONFIG:log.segment.bytes=1073741824"}},
		{"default", Default(), nil, "max.message.bytes", "1048588", SourceDefault, []string{"DEFAULT_CONFIG:message.max.bytes=1048588"}},
		{"no broker synonym", Default(), nil, "remote.storage.enable", "false", SourceDefault, []string{}},
		{"double", Default(), nil, "min.cleanable.dirty.ratio", "0.5", SourceDefault, []string{"DEFAULT_CONFIG:log.cleaner.min.cleanable.ratio=0.5"}},
	}
	for _, tt := range tests {
		es, err := tt.broker.DescribeTopic(tt.overrides, []string{tt.key})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 1 {
			t.Fatalf("%s: %d entries", tt.name, len(es))
		}
		e := es[0]
		if val(e.Value) != tt.value || e.Source != tt.source || e.ReadOnly || e.Sensitive || !reflect.DeepEqual(syn(e.Synonyms), tt.synonyms) {
			t.Errorf("%s: value %s source %v ro %v synonyms %q; want %s %v %q", tt.name, val(e.Value), e.Source, e.ReadOnly, syn(e.Synonyms), tt.value, tt.source, tt.synonyms)
		}
	}
	all, err := Default().DescribeTopic(nil, nil)
	if err != nil || len(all) != len(topicKeys.names)-len(quietTopicKeys) {
		t.Fatalf("all topic entries: %d, %v", len(all), err)
	}
	// A quiet key shows where the topic sets it or the request names it.
	set, _ := Default().DescribeTopic(map[string]string{"message.downconversion.enable": "false"}, nil)
	named, _ := Default().DescribeTopic(nil, []string{"message.downconversion.enable"})
	if len(set) != len(topicKeys.names) || val(entry(t, set, "message.downconversion.enable").Value) != "false" ||
		len(named) != 1 || val(named[0].Value) != "true" {
		t.Errorf("message.downconversion.enable: %d entries where set, %d where named", len(set), len(named))
	}
	if e := entry(t, all, "cleanup.policy"); e.Type != TypeList || e.Documentation == "" || e.Type.DescribeType() != 7 {
		t.Errorf("cleanup.policy entry %+v", e)
	}
}

func TestDescribeBroker(t *testing.T) {
	static := mustBroker(t, map[string]string{
		"log.retention.minutes":                        "10",
		"ssl.keystore.password":                        "secret",
		"custom.plugin.key":                            "v",
		"listener.name.external.ssl.keystore.location": "/k",
		"num.io.threads":                               "4",
	})
	b, err := static.WithDynamic(map[string]string{"num.io.threads": "6"}, map[string]string{"log.retention.ms": "99"})
	if err != nil {
		t.Fatal(err)
	}
	es := b.DescribeBroker(nil)
	tests := []struct {
		key       string
		value     string
		source    Source
		readOnly  bool
		sensitive bool
		synonyms  []string
	}{
		{"log.retention.ms", "99", SourceDynamicBroker, false, false, []string{"DYNAMIC_BROKER_CONFIG:log.retention.ms=99", "STATIC_BROKER_CONFIG:log.retention.minutes=10", "DEFAULT_CONFIG:log.retention.hours=168"}},
		{"log.retention.minutes", "10", SourceStaticBroker, true, false, []string{"STATIC_BROKER_CONFIG:log.retention.minutes=10", "DEFAULT_CONFIG:log.retention.hours=168"}},
		{"log.retention.hours", "168", SourceDefault, true, false, []string{"DEFAULT_CONFIG:log.retention.hours=168"}},
		{"num.io.threads", "6", SourceDynamicDefaultBroker, false, false, []string{"DYNAMIC_DEFAULT_BROKER_CONFIG:num.io.threads=6", "STATIC_BROKER_CONFIG:num.io.threads=4", "DEFAULT_CONFIG:num.io.threads=8"}},
		{"ssl.keystore.password", "<nil>", SourceStaticBroker, false, true, []string{"STATIC_BROKER_CONFIG:ssl.keystore.password=<nil>"}},
		{"custom.plugin.key", "<nil>", SourceStaticBroker, true, true, []string{"STATIC_BROKER_CONFIG:custom.plugin.key=<nil>"}},
		{"listener.name.external.ssl.keystore.location", "/k", SourceStaticBroker, true, false, []string{"STATIC_BROKER_CONFIG:listener.name.external.ssl.keystore.location=/k"}},
		{"log.roll.ms", "<nil>", SourceDefault, false, false, []string{}},
		{"node.id", "1", SourceDefault, true, false, []string{"DEFAULT_CONFIG:node.id=1"}},
		{"broker.id", "1", SourceDefault, true, false, []string{"DEFAULT_CONFIG:broker.id=-1"}},
	}
	for _, tt := range tests {
		e := entry(t, es, tt.key)
		if val(e.Value) != tt.value || e.Source != tt.source || e.ReadOnly != tt.readOnly || e.Sensitive != tt.sensitive || !reflect.DeepEqual(syn(e.Synonyms), tt.synonyms) {
			t.Errorf("%s: value %s source %v ro %v sens %v synonyms %q", tt.key, val(e.Value), e.Source, e.ReadOnly, e.Sensitive, syn(e.Synonyms))
		}
	}
	if e := entry(t, es, "custom.plugin.key"); e.Type != TypeUnknown {
		t.Errorf("unknown key type %v", e.Type)
	}
	for _, e := range es {
		if e.Name == "log.initial.task.delay.ms" {
			t.Error("internal key described")
		}
	}
	if got := b.DescribeBroker([]string{"num.io.threads", "nope"}); len(got) != 1 {
		t.Errorf("filtered describe: %d entries", len(got))
	}

	defaults := b.DescribeBrokerDefaults(nil)
	if len(defaults) != 1 || defaults[0].Name != "num.io.threads" || val(defaults[0].Value) != "6" ||
		!reflect.DeepEqual(syn(defaults[0].Synonyms), []string{"DYNAMIC_DEFAULT_BROKER_CONFIG:num.io.threads=6"}) {
		t.Errorf("defaults %+v", defaults)
	}
}
