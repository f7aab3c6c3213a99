package main

import (
	"slices"
	"testing"
)

// TestPropertyNamesFollowKafkasImage checks the mapping with the examples
// of Apache Kafka's docker/examples/README.md and Karst's own keys.
func TestPropertyNamesFollowKafkasImage(t *testing.T) {
	for env, want := range map[string]string{
		"ABC_DEF":        "abc.def",
		"ABC___DEF":      "abc-def",
		"ABC__DEF":       "abc_def",
		"LOG_DIRS":       "log.dirs",
		"NUM_PARTITIONS": "num.partitions",
		"LISTENER_NAME_PLAINTEXT_MAX_CONNECTIONS": "listener.name.plaintext.max.connections",
		"LISTENER_SECURITY_PROTOCOL_MAP":          "listener.security.protocol.map",
	} {
		if got := propertyName(env); got != want {
			t.Errorf("propertyName(%q) = %q, want %q", env, got, want)
		}
	}
}

func TestEnvironmentOverridesTakeOnlyBrokerVariables(t *testing.T) {
	got := environmentOverrides([]string{
		"PATH=/usr/bin",
		"KARST_NUM_PARTITIONS=3",
		"KARST_LOG_DIRS=/var/lib/karst",
		"KARST_ADVERTISED_LISTENERS=PLAINTEXT://host:9092=x",
		"KARST_=ignored",
		"KAFKA_NUM_PARTITIONS=9",
		"KARST_EXIT_WITH_PARENT=1",
		"KARST_TEST_LOG=debug",
		"KARST_KILL_CYCLES=50",
		"KARST_BIN=/tmp/karst",
		"KARST_ARTIFACTS=/tmp/ci-artifacts",
	})
	want := []string{"advertised.listeners=PLAINTEXT://host:9092=x", "log.dirs=/var/lib/karst", "num.partitions=3"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestBuiltByGoRun(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1234567/b001/exe/karst": true,
		"/root/.cache/go-build/exe/karst":     false,
		"/usr/local/bin/karst":                false,
		"/tmp/go-build1/b001/karst":           false,
	} {
		if got := builtByGoRun(exe); got != want {
			t.Errorf("builtByGoRun(%q) = %v, want %v", exe, got, want)
		}
	}
}
