package config

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustBroker(t *testing.T, props map[string]string) *Broker {
	t.Helper()
	b, _, err := FromProperties(props)
	if err != nil {
		t.Fatalf("FromProperties(%v): %v", props, err)
	}
	return b
}

func TestDefault(t *testing.T) {
	b := Default()
	if b.NodeID() != 1 || b.Int("broker.id") != 1 {
		t.Errorf("node.id %d broker.id %d, want 1", b.NodeID(), b.Int("broker.id"))
	}
	want := []Listener{{Name: "PLAINTEXT", Host: "", Port: 9092, SecurityProtocol: "PLAINTEXT"}}
	if !reflect.DeepEqual(b.Listeners(), want) || !reflect.DeepEqual(b.AdvertisedListeners(), want) {
		t.Errorf("listeners %v advertised %v", b.Listeners(), b.AdvertisedListeners())
	}
	if got := b.LogDirs(); !reflect.DeepEqual(got, []string{DefaultDataDir}) {
		t.Errorf("log dirs %v", got)
	}
	if b.MetadataLogDir() != DefaultDataDir || b.InterBrokerListenerName() != "PLAINTEXT" {
		t.Errorf("metadata dir %q inter-broker %q", b.MetadataLogDir(), b.InterBrokerListenerName())
	}
	if b.Int("num.partitions") != 1 || b.Int("socket.request.max.bytes") != 104857600 || !b.Bool("auto.create.topics.enable") {
		t.Error("unexpected defaults")
	}
	if b.LogRetentionMs() != 7*24*3600*1000 || b.LogRollMs() != 7*24*3600*1000 || b.LogFlushIntervalMs() != math.MaxInt64 {
		t.Errorf("retention %d roll %d flush %d", b.LogRetentionMs(), b.LogRollMs(), b.LogFlushIntervalMs())
	}
	if b.Long("log.message.timestamp.after.max.ms") != 3600000 || b.Int("num.recovery.threads.per.data.dir") != 2 {
		t.Error("Kafka 4.0 defaults (KIP-1030) not applied")
	}
	if b.OffsetsRetentionMs() != 7*24*3600*1000 {
		t.Errorf("offsets retention %d", b.OffsetsRetentionMs())
	}
}

func TestLoadFileThenOverridesInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.properties")
	file := "# sample\nnode.id=3\nnum.partitions = 4\nlog.dirs=/a,/b\nmystery.key=1\nlistener.name.plaintext.max.connections=7\n"
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	b, warnings, err := Load(path, []string{"num.partitions=5", "num.partitions=6", "auto.create.topics.enable=false", "other.unknown=x"})
	if err != nil {
		t.Fatal(err)
	}
	if b.NodeID() != 3 || b.Int("num.partitions") != 6 || b.Bool("auto.create.topics.enable") {
		t.Errorf("node %d partitions %d auto %v", b.NodeID(), b.Int("num.partitions"), b.Bool("auto.create.topics.enable"))
	}
	if !reflect.DeepEqual(b.LogDirs(), []string{"/a", "/b"}) {
		t.Errorf("log dirs %v", b.LogDirs())
	}
	if v, ok := b.ListenerOverride("PLAINTEXT", "max.connections"); !ok || v != "7" {
		t.Errorf("listener override %q %v", v, ok)
	}
	var keys []string
	for _, w := range warnings {
		keys = append(keys, w.Key)
	}
	if !reflect.DeepEqual(keys, []string{"mystery.key", "other.unknown"}) {
		t.Errorf("warnings %v", warnings)
	}
	if !strings.Contains(warnings[0].Message, "The configuration 'mystery.key' was supplied but isn't a known config.") {
		t.Errorf("warning text %q", warnings[0].Message)
	}
	// An invalid value in the file is fine when an override replaces it.
	if err := os.WriteFile(path, []byte("num.partitions=zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(path, []string{"num.partitions=2"}); err != nil {
		t.Errorf("overridden invalid value: %v", err)
	}
	if _, _, err := Load(path, nil); err == nil {
		t.Error("invalid file value accepted")
	}
	if _, _, err := Load("", []string{"no-equals"}); err == nil {
		t.Error("override without = accepted")
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Error("missing file accepted")
	}
}

func TestSynonymPrecedence(t *testing.T) {
	tests := []struct {
		props map[string]string
		get   func(*Broker) int64
		want  int64
	}{
		{map[string]string{}, (*Broker).LogRetentionMs, 168 * msPerHour},
		{map[string]string{"log.retention.hours": "1"}, (*Broker).LogRetentionMs, msPerHour},
		{map[string]string{"log.retention.hours": "1", "log.retention.minutes": "5"}, (*Broker).LogRetentionMs, 5 * msPerMinute},
		{map[string]string{"log.retention.hours": "1", "log.retention.minutes": "5", "log.retention.ms": "100"}, (*Broker).LogRetentionMs, 100},
		{map[string]string{"log.retention.ms": "-1"}, (*Broker).LogRetentionMs, -1},
		{map[string]string{"log.retention.ms": "-7"}, (*Broker).LogRetentionMs, -1},
		{map[string]string{"log.retention.hours": "-1"}, (*Broker).LogRetentionMs, -1},
		{map[string]string{"log.roll.hours": "2"}, (*Broker).LogRollMs, 2 * msPerHour},
		{map[string]string{"log.roll.hours": "2", "log.roll.ms": "10"}, (*Broker).LogRollMs, 10},
		{map[string]string{"log.roll.jitter.hours": "1"}, (*Broker).LogRollJitterMs, msPerHour},
		{map[string]string{"log.roll.jitter.hours": "1", "log.roll.jitter.ms": "9"}, (*Broker).LogRollJitterMs, 9},
		{map[string]string{"log.flush.scheduler.interval.ms": "7"}, (*Broker).LogFlushIntervalMs, 7},
		{map[string]string{"log.flush.scheduler.interval.ms": "7", "log.flush.interval.ms": "5"}, (*Broker).LogFlushIntervalMs, 5},
		{map[string]string{"offsets.retention.minutes": "2"}, (*Broker).OffsetsRetentionMs, 2 * msPerMinute},
	}
	for _, tt := range tests {
		if got := tt.get(mustBroker(t, tt.props)); got != tt.want {
			t.Errorf("%v: got %d, want %d", tt.props, got, tt.want)
		}
	}
}

func TestBrokerValidationErrors(t *testing.T) {
	tests := []struct {
		props map[string]string
		key   string
		msg   string
	}{
		{map[string]string{"num.partitions": "0"}, "num.partitions", "Invalid value 0 for configuration num.partitions: Value must be at least 1"},
		{map[string]string{"num.partitions": "abc"}, "num.partitions", "Invalid value abc for configuration num.partitions: Not a number of type INT"},
		{map[string]string{"num.partitions": "3000000000"}, "num.partitions", "Not a number of type INT"},
		{map[string]string{"log.retention.bytes": "1.5"}, "log.retention.bytes", "Not a number of type LONG"},
		{map[string]string{"auto.create.topics.enable": "yes"}, "auto.create.topics.enable", "Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false"},
		{map[string]string{"log.cleanup.policy": "compact,foo"}, "log.cleanup.policy", "Invalid value foo for configuration log.cleanup.policy: String must be one of: compact, delete"},
		{map[string]string{"compression.type": "brotli"}, "compression.type", "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"},
		{map[string]string{"compression.gzip.level": "0"}, "compression.gzip.level", "Value must be between 1 and 9 or equal to -1"},
		{map[string]string{"compression.zstd.level": "23"}, "compression.zstd.level", "Value must be no more than 22"},
		{map[string]string{"log.cleaner.min.cleanable.ratio": "1.5"}, "log.cleaner.min.cleanable.ratio", "Value must be no more than 1"},
		{map[string]string{"log.cleaner.min.cleanable.ratio": "x"}, "log.cleaner.min.cleanable.ratio", "Not a number of type DOUBLE"},
		{map[string]string{"log.segment.bytes": "1000"}, "log.segment.bytes", "Invalid value 1000 for configuration log.segment.bytes: Value must be at least 1048576"},
		{map[string]string{"log.message.timestamp.type": "createtime"}, "log.message.timestamp.type", "String must be one of: CreateTime, LogAppendTime"},
		{map[string]string{"listeners": "FOO://:9092"}, "listeners", "No security protocol defined for listener FOO"},
		{map[string]string{"listeners": "garbage"}, "listeners", "Unable to parse garbage to a broker endpoint"},
		{map[string]string{"listeners": "PLAINTEXT://:99999"}, "listeners", "port of PLAINTEXT://:99999 must be in [0, 65535]"},
		{map[string]string{"listeners": "PLAINTEXT://:9092,plaintext://:9093"}, "listeners", "Each listener must have a different name"},
		{map[string]string{"listeners": "PLAINTEXT://:9092,SSL://:9092"}, "listeners", "Each listener must have a different port"},
		{map[string]string{"listeners": ""}, "listeners", "at least one listener is required"},
		{map[string]string{"listeners": "PLAINTEXT://0.0.0.0:9092"}, "listeners", "cannot use the nonroutable meta-address 0.0.0.0"},
		{map[string]string{"advertised.listeners": "PLAINTEXT://0.0.0.0:9092"}, "advertised.listeners", "cannot use the nonroutable meta-address"},
		{map[string]string{"advertised.listeners": "SSL://h:1"}, "advertised.listeners", "must be equal to or a subset of the ones defined in listeners. Found SSL"},
		{map[string]string{"listener.security.protocol.map": "PLAINTEXT:TLS"}, "listener.security.protocol.map", "unknown security protocol 'TLS'"},
		{map[string]string{"node.id": "1", "broker.id": "2"}, "broker.id", "You must set `node.id` to the same value as `broker.id`."},
		{map[string]string{"node.id": "-1"}, "node.id", "Value must be at least 0"},
		{map[string]string{"inter.broker.listener.name": "PLAINTEXT", "security.inter.broker.protocol": "PLAINTEXT"}, "inter.broker.listener.name", "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set."},
		{map[string]string{"inter.broker.listener.name": "SSL"}, "inter.broker.listener.name", "inter.broker.listener.name must be a listener name defined in advertised.listeners"},
		{map[string]string{"security.inter.broker.protocol": "TLS"}, "security.inter.broker.protocol", "String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"},
		{map[string]string{"queued.max.request.bytes": "10"}, "queued.max.request.bytes", "queued.max.request.bytes must be larger or equal to socket.request.max.bytes"},
		{map[string]string{"group.consumer.heartbeat.interval.ms": "50000", "group.consumer.max.heartbeat.interval.ms": "60000"}, "group.consumer.heartbeat.interval.ms", "must be less than group.consumer.session.timeout.ms"},
		{map[string]string{"log.dirs": "/a,/a"}, "log.dirs", "Duplicate value '/a' found."},
		{map[string]string{"process.roles": "controller"}, "process.roles", "process.roles must include broker"},
		{map[string]string{"process.roles": "broker,worker"}, "process.roles", "String must be one of: broker, controller"},
		{map[string]string{"log.cleaner.min.compaction.lag.ms": "10", "log.cleaner.max.compaction.lag.ms": "5"}, "log.cleaner.min.compaction.lag.ms", "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"},
		{map[string]string{"karst.metrics.listener": "nope"}, "karst.metrics.listener", "Expected host:port"},
		{map[string]string{"client.quota.callback.class": "com.example.PartitionQuotas"}, "client.quota.callback.class", "Karst cannot load a ClientQuotaCallback class"},
		{map[string]string{"authorizer.class.name": "org.apache.ranger.authorization.kafka.authorizer.RangerKafkaAuthorizer"}, "authorizer.class.name", "Karst serves only the authorizer org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
	}
	for _, tt := range tests {
		_, _, err := FromProperties(tt.props)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%v: err = %v, want *ConfigError", tt.props, err)
			continue
		}
		if ce.Key != tt.key || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%v: key %q err %q, want key %q containing %q", tt.props, ce.Key, err, tt.key, tt.msg)
		}
	}
}

func TestListenersLikeKafkaSampleConfig(t *testing.T) {
	b, warnings, err := FromProperties(map[string]string{
		"process.roles":                    "broker,controller",
		"node.id":                          "1",
		"controller.quorum.voters":         "1@localhost:9093",
		"listeners":                        "PLAINTEXT://:9092,CONTROLLER://:9093",
		"inter.broker.listener.name":       "PLAINTEXT",
		"advertised.listeners":             "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093",
		"controller.listener.names":        "CONTROLLER",
		"listener.security.protocol.map":   "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
		"offsets.topic.replication.factor": "1",
	})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v warnings %v", err, warnings)
	}
	if len(b.Listeners()) != 2 || b.Listeners()[1].Name != "CONTROLLER" || b.Listeners()[1].SecurityProtocol != "PLAINTEXT" {
		t.Errorf("listeners %v", b.Listeners())
	}
	want := []Listener{{Name: "PLAINTEXT", Host: "localhost", Port: 9092, SecurityProtocol: "PLAINTEXT"}}
	if !reflect.DeepEqual(b.AdvertisedListeners(), want) {
		t.Errorf("advertised %v", b.AdvertisedListeners())
	}
	if !reflect.DeepEqual(b.ControllerListenerNames(), []string{"CONTROLLER"}) {
		t.Errorf("controller names %v", b.ControllerListenerNames())
	}
}

func TestListenerForms(t *testing.T) {
	b := mustBroker(t, map[string]string{
		"listeners":                      "client://127.0.0.1:0, internal://[::1]:0,EXTERNAL://host.example:19092",
		"listener.security.protocol.map": "CLIENT:PLAINTEXT, INTERNAL:SASL_PLAINTEXT,external:ssl",
		"inter.broker.listener.name":     "internal",
	})
	want := []Listener{
		{Name: "CLIENT", Host: "127.0.0.1", Port: 0, SecurityProtocol: "PLAINTEXT"},
		{Name: "INTERNAL", Host: "::1", Port: 0, SecurityProtocol: "SASL_PLAINTEXT"},
		{Name: "EXTERNAL", Host: "host.example", Port: 19092, SecurityProtocol: "SSL"},
	}
	if !reflect.DeepEqual(b.Listeners(), want) {
		t.Fatalf("listeners %+v", b.Listeners())
	}
	if b.Listeners()[1].Addr() != "[::1]:0" || b.Listeners()[1].String() != "INTERNAL://[::1]:0" {
		t.Errorf("addr %q string %q", b.Listeners()[1].Addr(), b.Listeners()[1].String())
	}
	if b.InterBrokerListenerName() != "INTERNAL" {
		t.Errorf("inter-broker %q", b.InterBrokerListenerName())
	}
	// IPv4 and IPv6 listeners may share a port.
	mustBroker(t, map[string]string{"listeners": "PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092"})
	// A default inter-broker listener that does not exist only warns.
	_, warnings, err := FromProperties(map[string]string{"listeners": "SSL://:9093"})
	if err != nil || len(warnings) != 1 || warnings[0].Key != "inter.broker.listener.name" {
		t.Errorf("err %v warnings %v", err, warnings)
	}
}

func TestBrokerIDSynonym(t *testing.T) {
	if b := mustBroker(t, map[string]string{"broker.id": "7"}); b.NodeID() != 7 || b.Int("broker.id") != 7 {
		t.Errorf("broker.id only: node %d", b.NodeID())
	}
	if b := mustBroker(t, map[string]string{"node.id": "4"}); b.Int("broker.id") != 4 {
		t.Errorf("node.id only: broker.id %d", b.Int("broker.id"))
	}
	if b := mustBroker(t, map[string]string{"node.id": "4", "broker.id": "4"}); b.NodeID() != 4 {
		t.Error("equal ids refused")
	}
}

func TestTypedAccessors(t *testing.T) {
	b := mustBroker(t, map[string]string{
		"log.cleanup.policy":               " compact , delete ",
		"log.cleaner.min.cleanable.ratio":  "0.25",
		"offsets.topic.replication.factor": "2",
		"cluster.id":                       "  abc  ",
		"ssl.keystore.password":            "secret",
	})
	if got := b.List("log.cleanup.policy"); !reflect.DeepEqual(got, []string{"compact", "delete"}) {
		t.Errorf("list %q", got)
	}
	if b.Double("log.cleaner.min.cleanable.ratio") != 0.25 || b.Short("offsets.topic.replication.factor") != 2 {
		t.Error("double/short")
	}
	if b.ClusterID() != "abc" || b.String("ssl.keystore.password") != "secret" {
		t.Errorf("cluster id %q", b.ClusterID())
	}
	if b.Long("log.roll.ms") != 0 || b.IsSet("log.roll.ms") {
		t.Error("null long")
	}
	if _, ok := b.Get("log.roll.ms"); ok {
		t.Error("null key reported as set")
	}
	defer func() {
		if recover() == nil {
			t.Error("wrong-type accessor did not panic")
		}
	}()
	b.Int("log.retention.bytes")
}

func TestJavaDoubleString(t *testing.T) {
	for in, want := range map[float64]string{0.5: "0.5", 1: "1.0", 0.9: "0.9", math.MaxFloat64: "1.7976931348623157E308", 1e7: "1.0E7", 1.5e-5: "1.5E-5", 0: "0.0"} {
		if got := javaDoubleString(in); got != want {
			t.Errorf("%v: got %q, want %q", in, got, want)
		}
	}
}

func TestKeysMarkdown(t *testing.T) {
	md := BrokerKeysMarkdown()
	if !strings.Contains(md, "| `log.retention.ms` | long | null |  | cluster-wide |") || strings.Contains(md, "log.initial.task.delay.ms") {
		t.Errorf("broker markdown:\n%s", md[:400])
	}
	if md := TopicKeysMarkdown(); !strings.Contains(md, "| `retention.ms` | long | `604800000` | [-1,...] | `log.retention.ms`, `log.retention.minutes`, `log.retention.hours` |") {
		t.Errorf("topic markdown:\n%s", md)
	}
}
