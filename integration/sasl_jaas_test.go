package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/node"
	"github.com/karst-broker/karst/karsttest"
)

// An operator's kafka_server_jaas.conf, named as Kafka's start script
// takes it (KAFKA_OPTS=-Djava.security.auth.login.config=...), serves
// unchanged: PLAIN's users come from the KafkaServer entry, SCRAM needs
// no more than its login module there.
func TestSASLJAASFileFromKafkaOpts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kafka_server_jaas.conf")
	jaas := `KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin"
    password="admin-secret"
    user_admin="admin-secret"
    user_alice="alice-secret";
    org.apache.kafka.common.security.scram.ScramLoginModule required;
};
`
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAFKA_OPTS", "-Xmx1g -Djava.security.auth.login.config="+path)
	b := karsttest.Start(t,
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	produceAndReadBack(t, saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()), "jaas-file-plain")
	wantSASLFailure(t, addr, plain.Auth{User: "alice", Pass: "wrong"}.AsMechanism(), kerr.SaslAuthenticationFailed, "Authentication failed: Invalid username or password")

	adm := kadm.NewClient(rawClient(t, b.Addr()))
	if _, err := adm.AlterUserSCRAMs(testContext(t), nil, []kadm.UpsertSCRAM{{User: "sam", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "sam-secret"}}); err != nil {
		t.Fatal(err)
	}
	produceAndReadBack(t, saslClient(t, addr, scram.Auth{User: "sam", Pass: "sam-secret"}.AsSha512Mechanism()), "jaas-file-scram")
}

// A KAFKA_OPTS JAAS file without an entry the listener reads stops the
// broker with Kafka's message.
func TestSASLJAASFileWithoutKafkaServerEntryStopsTheBroker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client_jaas.conf")
	if err := os.WriteFile(path, []byte("Client { org.apache.zookeeper.server.auth.DigestLoginModule required username=\"zk\"; };\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAFKA_OPTS", "-Djava.security.auth.login.config="+path)
	want := "Could not find a 'KafkaServer' or 'sasl_plaintext.KafkaServer' entry in the JAAS configuration. System property 'java.security.auth.login.config' is " + path
	settings, _, err := config.Load("", []string{"listeners=SASL_PLAINTEXT://127.0.0.1:0", "sasl.enabled.mechanisms=PLAIN", "log.dirs=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.ConfigFrom(settings); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}

// Kafka 4.4.0 accepts an IncrementalAlterConfigs of an existing listener's
// listener.name.<l>.plain.sasl.jaas.config on the broker, stores it and
// describes it as a dynamic broker config, but the listener keeps
// authenticating with the JAAS it started with, after a restart too
// (measured with interop/kafka's Kafka 4.4.0: the new user is refused, the
// old one accepted). Karst answers the same way.
func TestSASLListenerJAASIsNotReconfiguredDynamically(t *testing.T) {
	dir := t.TempDir()
	start := func() *karsttest.Broker {
		return startSASLBroker(t,
			karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"),
			karsttest.WithConfig("log.dirs", dir))
	}
	b := start()
	key := "listener.name.sasl_plaintext.plain.sasl.jaas.config"
	carolJAAS := `org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_carol="carol-secret";`
	adm := kadm.NewClient(rawClient(t, b.Addr()))
	res, err := adm.AlterBrokerConfigs(testContext(t), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: &carolJAAS}}, 1)
	if err == nil {
		err = res[0].Err
	}
	if err != nil {
		t.Fatalf("altering %s: %v (Kafka 4.4.0 accepts it)", key, err)
	}
	described, err := adm.DescribeBrokerConfigs(testContext(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := described.On("1", nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, c := range cfg.Configs {
		if c.Key == key {
			found = true
			if c.Source != kmsg.ConfigSourceDynamicBrokerConfig || !c.Sensitive || c.Value != nil {
				t.Errorf("%s described as source %v sensitive %v value %v, want a hidden dynamic broker config", key, c.Source, c.Sensitive, c.Value)
			}
		}
	}
	if !found {
		t.Errorf("%s is not described", key)
	}
	check := func(when string, addr string) {
		t.Helper()
		wantSASLFailure(t, addr, plain.Auth{User: "carol", Pass: "carol-secret"}.AsMechanism(), kerr.SaslAuthenticationFailed, "Authentication failed: Invalid username or password")
		if err := saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()).Ping(testContext(t)); err != nil {
			t.Fatalf("%s: admin of the static JAAS: %v", when, err)
		}
	}
	check("after the alter", b.ListenerAddr("SASL_PLAINTEXT"))
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	check("after a restart", start().ListenerAddr("SASL_PLAINTEXT"))
}
