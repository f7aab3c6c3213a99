package config

import (
	"errors"
	"reflect"
	"testing"
)

func TestValidateDynamicConfigs(t *testing.T) {
	b := Default()
	tests := []struct {
		name      string
		perBroker bool
		props     map[string]string
		msg       string
	}{
		{"cluster-wide at default", false, map[string]string{"log.retention.ms": "100", "num.io.threads": "4", "message.max.bytes": "2000000"}, ""},
		{"cluster-wide per broker", true, map[string]string{"log.cleanup.policy": "compact"}, ""},
		{"per-broker listener", true, map[string]string{"listeners": "PLAINTEXT://:9092,SSL://:9093"}, ""},
		{"listener-prefixed keystore", true, map[string]string{"listener.name.ssl.ssl.keystore.location": "/k"}, ""},
		{"unknown keys allowed", false, map[string]string{"my.plugin.setting": "x"}, ""},
		{"read-only", true, map[string]string{"log.dirs": "/x", "log.retention.hours": "1"}, "Cannot update these configs dynamically: [log.retention.hours, log.dirs]"},
		{"keystore without prefix", true, map[string]string{"ssl.keystore.location": "/k"}, "These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.location]"},
		{"bad value", false, map[string]string{"log.retention.ms": "soon"}, "Invalid value soon for configuration log.retention.ms: Not a number of type LONG"},
		{"bad prefixed value", true, map[string]string{"listener.name.plaintext.max.connections": "-1"}, "Invalid value -1 for configuration listener.name.plaintext.max.connections: Value must be at least 0"},
		{"per-broker at default", false, map[string]string{"listeners": "PLAINTEXT://:9092"}, "Cannot update these configs at default cluster level, broker id must be specified: [listeners]"},
		{"per-broker prefixed at default", false, map[string]string{"listener.name.plaintext.ssl.client.auth": "none"}, "Cannot update these configs at default cluster level, broker id must be specified: [listener.name.plaintext.ssl.client.auth]"},
		{"cluster-level prefixed at default", false, map[string]string{"listener.name.plaintext.max.connections": "10"}, ""},
		{"result must be valid", true, map[string]string{"advertised.listeners": "SSL://h:1"}, "Invalid value SSL://h:1 for configuration advertised.listeners: advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found SSL. The valid options based on the current configuration are PLAINTEXT"},
	}
	for _, tt := range tests {
		err := b.ValidateDynamicConfigs(tt.perBroker, tt.props)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%s: unexpected %v", tt.name, err)
			}
			continue
		}
		var re *RequestError
		if !errors.As(err, &re) || re.Code != ErrInvalidRequest || re.Message != tt.msg {
			t.Errorf("%s: err %v, want INVALID_REQUEST %q", tt.name, err, tt.msg)
		}
	}
}

func TestWithDynamicPrecedence(t *testing.T) {
	b := mustBroker(t, map[string]string{"log.retention.ms": "1", "num.io.threads": "2"})
	d, err := b.WithDynamic(map[string]string{"log.retention.ms": "2"}, map[string]string{"log.retention.ms": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if d.LogRetentionMs() != 3 || b.LogRetentionMs() != 1 {
		t.Errorf("per-broker: %d (original %d)", d.LogRetentionMs(), b.LogRetentionMs())
	}
	d, _ = d.WithDynamic(map[string]string{"log.retention.ms": "2"}, nil)
	if d.LogRetentionMs() != 2 || d.Int("num.io.threads") != 2 {
		t.Errorf("cluster default: %d", d.LogRetentionMs())
	}
	tc, _ := EffectiveTopicConfig(d, nil)
	if tc.RetentionMs != 2 {
		t.Errorf("topic default follows dynamic broker config: %d", tc.RetentionMs)
	}
	cd, pb := d.DynamicOverrides()
	if cd["log.retention.ms"] != "2" || len(pb) != 0 {
		t.Errorf("overrides %v %v", cd, pb)
	}
	if _, err := d.WithDynamic(nil, map[string]string{"num.io.threads": "0"}); err == nil {
		t.Error("invalid dynamic value accepted")
	}
}

func TestCheckBrokerResource(t *testing.T) {
	b := mustBroker(t, map[string]string{"node.id": "5"})
	if per, err := b.CheckBrokerResource(""); per || err != nil {
		t.Errorf("default resource: %v %v", per, err)
	}
	if per, err := b.CheckBrokerResource("5"); !per || err != nil {
		t.Errorf("own id: %v %v", per, err)
	}
	if _, err := b.CheckBrokerResource("6"); err == nil || err.Error() != "Unexpected broker id, expected 5, but received 6" || ErrorCode(err) != ErrInvalidRequest {
		t.Errorf("other id: %v", err)
	}
	if _, err := b.CheckBrokerResource("x"); err == nil || err.Error() != "Node id must be an integer, but it is: x" {
		t.Errorf("not a number: %v", err)
	}
}

func TestApplyChanges(t *testing.T) {
	cur := map[string]string{"cleanup.policy": "delete", "retention.ms": "5"}
	got, err := ApplyTopicChanges(cur, []ConfigChange{
		{Name: "cleanup.policy", Op: OpAppend, Value: sp("compact,delete")},
		{Name: "retention.ms", Op: OpDelete},
		{Name: "segment.ms", Op: OpSet, Value: sp("100")},
		{Name: "leader.replication.throttled.replicas", Op: OpAppend, Value: sp("0:1")},
	})
	want := map[string]string{"cleanup.policy": "delete,compact", "segment.ms": "100", "leader.replication.throttled.replicas": "0:1"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v %v", got, err)
	}
	if cur["retention.ms"] != "5" {
		t.Error("input modified")
	}
	got, err = ApplyTopicChanges(nil, []ConfigChange{{Name: "cleanup.policy", Op: OpSubtract, Value: sp("delete")}})
	if err != nil || got["cleanup.policy"] != "" {
		t.Errorf("subtract from default: %v %v", got, err)
	}
	got, err = ApplyBrokerChanges(nil, []ConfigChange{{Name: "log.cleanup.policy", Op: OpAppend, Value: sp("compact")}})
	if err != nil || got["log.cleanup.policy"] != "delete,compact" {
		t.Errorf("broker append: %v %v", got, err)
	}
	errs := []struct {
		changes []ConfigChange
		code    int16
		msg     string
	}{
		{[]ConfigChange{{Name: "a", Op: OpSet, Value: sp("1")}, {Name: "a", Op: OpDelete}}, ErrInvalidRequest, "Error due to duplicate config keys"},
		{[]ConfigChange{{Name: "retention.ms", Op: OpSet}}, ErrInvalidRequest, "Null value not supported for : retention.ms"},
		{[]ConfigChange{{Name: "retention.ms", Op: OpAppend, Value: sp("1")}}, ErrInvalidConfig, "Can't APPEND to key retention.ms because its type is not LIST."},
		{[]ConfigChange{{Name: "nope", Op: OpSubtract, Value: sp("1")}}, ErrInvalidConfig, "Can't SUBTRACT to key nope because its type is not known."},
	}
	for _, e := range errs {
		_, err := ApplyTopicChanges(nil, e.changes)
		if err == nil || ErrorCode(err) != e.code || err.Error() != e.msg {
			t.Errorf("%v: err %v", e.changes, err)
		}
	}
}

// The orders Kafka 4.4.0 printed (kafka-configs --alter against
// interop/kafka's broker): a java.util.HashSet's iteration order.
func TestJavaSetPrintsKafkasOrder(t *testing.T) {
	cases := []struct {
		names []string
		want  string
	}{
		{[]string{"log.dirs", "num.partitions"}, "[num.partitions, log.dirs]"},
		{[]string{"listener.name.plaintext.ssl.client.auth", "listener.name.plaintext.max.connections.x"},
			"[listener.name.plaintext.max.connections.x, listener.name.plaintext.ssl.client.auth]"},
		{[]string{"ssl.keystore.location"}, "[ssl.keystore.location]"},
	}
	for _, c := range cases {
		if got := javaSet(c.names); got != c.want {
			t.Errorf("javaSet(%q) = %s, want %s", c.names, got, c.want)
		}
	}
}
