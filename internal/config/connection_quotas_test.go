package config

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestConnectionOverridesParseLikeKafkasCsvMap(t *testing.T) {
	got, err := ParseConnectionOverrides("127.0.0.1:5 , broker-1.example:2,::1:7,fe80::1%eth0:3,")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"127.0.0.1": 5, "broker-1.example": 2, "::1": 7, "fe80::1%eth0": 3}
	if !maps.Equal(got, want) {
		t.Fatalf("parsed %v, want %v", got, want)
	}
	for _, bad := range []struct{ value, msg string }{
		{"localhost", "is not host:count"},
		{"localhost:many", `For input string: "many"`},
		{"bad host:1,a/b:2", "max.connections.per.ip.overrides contains invalid addresses : bad host,a/b"},
	} {
		_, err := ParseConnectionOverrides(bad.value)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != "max.connections.per.ip.overrides" || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%q: err %v, want a ConfigError on max.connections.per.ip.overrides containing %q", bad.value, err, bad.msg)
		}
	}
}

func TestConnectionQuotaSettings(t *testing.T) {
	if _, _, err := FromProperties(map[string]string{"max.connections.per.ip": "0"}); err == nil ||
		!strings.Contains(err.Error(), "max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.") {
		t.Fatalf("max.connections.per.ip 0 without overrides: %v", err)
	}
	if _, _, err := FromProperties(map[string]string{"max.connections.per.ip.overrides": "x y:1"}); err == nil {
		t.Fatal("an invalid override host was accepted")
	}
	b, _, err := FromProperties(map[string]string{
		"max.connections.per.ip": "0", "max.connections.per.ip.overrides": "localhost:3",
		"max.connections": "100", "listener.name.internal.max.connections": "20",
		"listeners": "PLAINTEXT://:9092,INTERNAL://:9094", "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.MaxConnectionsPerIPOverrides(); !maps.Equal(got, map[string]int{"localhost": 3}) {
		t.Fatalf("overrides %v", got)
	}
	if got := b.ListenerMaxConnections("INTERNAL"); got != 20 {
		t.Fatalf("INTERNAL max.connections = %d, want its listener override 20", got)
	}
	if got := b.ListenerMaxConnections("PLAINTEXT"); got != 100 {
		t.Fatalf("PLAINTEXT max.connections = %d, want the broker-wide 100", got)
	}
}

func TestDynamicConnectionQuotasAreValidated(t *testing.T) {
	b, _, err := FromProperties(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ValidateDynamicConfigs(false, map[string]string{"max.connections.per.ip": "0"}); err == nil {
		t.Fatal("cluster-wide max.connections.per.ip 0 without overrides was accepted")
	}
	if err := b.ValidateDynamicConfigs(false, map[string]string{"max.connections.per.ip": "0", "max.connections.per.ip.overrides": "127.0.0.1:4"}); err != nil {
		t.Fatal(err)
	}
}
