package config

import (
	"errors"
	"reflect"
	"testing"
)

func TestAdvertisedHost(t *testing.T) {
	defer func(f func() (string, error)) { osHostname = f }(osHostname)
	osHostname = func() (string, error) { return "localhost", nil }
	if h := AdvertisedHost(); h != "localhost" {
		t.Errorf("resolvable host name: %q", h)
	}
	osHostname = func() (string, error) { return "no-such-host.invalid", nil }
	if h := AdvertisedHost(); h != "127.0.0.1" {
		t.Errorf("unresolvable host name: %q", h)
	}
	osHostname = func() (string, error) { return "", errors.New("no hostname") }
	if h := AdvertisedHost(); h != "127.0.0.1" {
		t.Errorf("no host name: %q", h)
	}
}

func TestAdvertise(t *testing.T) {
	b := mustBroker(t, map[string]string{"listeners": "PLAINTEXT://:0,SSL://10.0.0.1:9093"})
	got := b.Advertise("127.0.0.1", func(name string) (int, bool) { return 40000, name == "PLAINTEXT" })
	want := []Listener{
		{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 40000, SecurityProtocol: "PLAINTEXT"},
		{Name: "SSL", Host: "10.0.0.1", Port: 9093, SecurityProtocol: "SSL"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
	if b.AdvertisedListeners()[0].Port != 0 {
		t.Error("Advertise modified the snapshot")
	}
}

// kafkaSample is Apache Kafka 4.x's config/server.properties (keys and
// values, comments dropped): Karst must take it without a warning.
const kafkaSample = `
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=localhost:9093
listeners=PLAINTEXT://:9092,CONTROLLER://:9093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=/tmp/kraft-combined-logs
num.partitions=1
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
log.retention.hours=168
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
`

func TestKafkaSampleConfig(t *testing.T) {
	props, err := ParseProperties([]byte(kafkaSample))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, p := range props {
		m[p.Key] = p.Value
	}
	b, warnings, err := FromProperties(m)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("err %v warnings %v", err, warnings)
	}
	if b.LogDirs()[0] != "/tmp/kraft-combined-logs" || len(b.AdvertisedListeners()) != 1 {
		t.Errorf("dirs %v advertised %v", b.LogDirs(), b.AdvertisedListeners())
	}
}
