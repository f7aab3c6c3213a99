package admincli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigGetAndSetTopicBrokerGroup(t *testing.T) {
	c := startCLI(t)
	c.ok("topic", "create", "metrics", "--config", "retention.ms=86400000")

	got := c.ok("config", "get", "topic", "metrics")
	wantEqual(t, "topic configs set", got, "KEY           VALUE     SOURCE\nretention.ms  86400000  DYNAMIC_TOPIC_CONFIG\n")
	wantEqual(t, "set", c.ok("config", "set", "topic", "metrics", "max.message.bytes=2097152", "--delete", "retention.ms"),
		"updated topic \"metrics\": max.message.bytes=2097152, retention.ms removed\n")
	all := c.ok("config", "get", "topic", "metrics", "--all")
	if r := row(t, all, "max.message.bytes"); r[1] != "2097152" || r[2] != "DYNAMIC_TOPIC_CONFIG" {
		t.Errorf("max.message.bytes row %q", r)
	}
	if r := row(t, all, "retention.ms"); r[2] == "DYNAMIC_TOPIC_CONFIG" {
		t.Errorf("retention.ms still set: %q", r)
	}
	if r := row(t, all, "cleanup.policy"); r[1] != "delete" {
		t.Errorf("cleanup.policy row %q", r)
	}

	// Broker 1 is karsttest's node.id; "" is the cluster-wide default.
	c.ok("config", "set", "broker", "1", "log.cleaner.threads=2")
	if r := row(t, c.ok("config", "get", "broker", "1"), "log.cleaner.threads"); r[1] != "2" || r[2] != "DYNAMIC_BROKER_CONFIG" {
		t.Errorf("broker config row %q", r)
	}
	c.ok("config", "set", "broker", "", "log.retention.ms=7200000")
	if r := row(t, c.ok("config", "get", "broker", ""), "log.retention.ms"); r[1] != "7200000" || r[2] != "DYNAMIC_DEFAULT_BROKER_CONFIG" {
		t.Errorf("cluster default row %q", r)
	}

	c.ok("config", "set", "group", "payments", "consumer.session.timeout.ms=50000")
	if r := row(t, c.ok("config", "get", "group", "payments"), "consumer.session.timeout.ms"); r[1] != "50000" || r[2] != "GROUP_CONFIG" {
		t.Errorf("group config row %q", r)
	}

	if errOut := c.fails(1, "config", "set", "topic", "metrics", "no.such.config=1"); !strings.Contains(errOut, "INVALID_CONFIG") {
		t.Errorf("unknown key: %s", errOut)
	}
	if errOut := c.fails(1, "config", "get", "topic", "nosuch"); !strings.Contains(errOut, "UNKNOWN_TOPIC_OR_PARTITION") {
		t.Errorf("unknown topic: %s", errOut)
	}
}

func TestClusterInfoAndCommandConfig(t *testing.T) {
	c := startCLI(t)
	info := c.ok("cluster", "info")
	lines := fields(info)
	if len(lines) != 6 || lines[0][0] != "CLUSTER" || len(lines[0]) != 2 || strings.Join(lines[1], " ") != "CONTROLLER 1" ||
		strings.Join(lines[4], " ") != "BROKER HOST PORT RACK" || strings.Join(lines[5][:2], " ") != "1 127.0.0.1" {
		t.Errorf("cluster info:\n%s", info)
	}
	// The bootstrap comes from the file when no flag names it, as
	// kafka-topics --command-config takes it; the flag wins over it.
	file := filepath.Join(t.TempDir(), "client.properties")
	writeFile := func(text string) {
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("# client\nbootstrap.servers=" + c.bootstrap + "\nclient.id=ops\nlinger.ms=5\n")
	var out, errOut strings.Builder
	status := commandNamed(t, "cluster").Run(t.Context(), []string{"info", "--command-config", file}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if status != 0 || !strings.Contains(out.String(), "CONTROLLER  1") || !strings.Contains(errOut.String(), "ignoring linger.ms") {
		t.Errorf("bootstrap from the file: exit %d\n%s%s", status, out.String(), errOut.String())
	}
	writeFile("bootstrap.servers=127.0.0.1:1\n")
	c.ok("cluster", "info", "--command-config", file)
	writeFile("security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\nsasl.username=u\n")
	if errOut := c.fails(1, "cluster", "info", "--command-config", file); !strings.Contains(errOut, "sasl.mechanism=GSSAPI") {
		t.Errorf("an unsupported SASL mechanism: %s", errOut)
	}
}
