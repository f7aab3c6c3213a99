package integration

import (
	"crypto/tls"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	segkafka "github.com/segmentio/kafka-go"
	segsasl "github.com/segmentio/kafka-go/sasl"
	segplain "github.com/segmentio/kafka-go/sasl/plain"
	segscram "github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/xdg-go/scram"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
)

// startSASLSSLBroker serves SASL_SSL (PLAIN and SCRAM-SHA-512 over TLS)
// with the stores of startTLSBroker, and creates dora's SCRAM credential
// and topics.
func startSASLSSLBroker(t *testing.T, topics ...string) *tlsBroker {
	t.Helper()
	b := startTLSBroker(t, "none",
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", saslAdminJAAS))
	admin := kadm.NewClient(saslClient(t, b.ListenerAddr("SASL_SSL"), plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism(),
		kgo.DialTLSConfig(b.clientTLS(false))))
	if _, err := admin.AlterUserSCRAMs(testContext(t), nil, []kadm.UpsertSCRAM{{User: "dora", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "dora-512"}}); err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		if _, err := admin.CreateTopic(testContext(t), 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// untrustedTLS trusts another CA than the one that signed the broker.
func untrustedTLS(t *testing.T) *tls.Config {
	return &tls.Config{RootCAs: tlstest.NewCA(t, "some-other-ca").Pool(), ServerName: "127.0.0.1"}
}

func TestSASLSSLSarama(t *testing.T) {
	b := startSASLSSLBroker(t, "sasl-ssl-sarama-plain", "sasl-ssl-sarama-scram")
	addr := b.ListenerAddr("SASL_SSL")
	sasl := func(mechanism sarama.SASLMechanism, user, password string, tlsConfig *tls.Config) *sarama.Config {
		cfg := sarama.NewConfig()
		cfg.Net.TLS.Enable, cfg.Net.TLS.Config = true, tlsConfig
		cfg.Net.SASL.Enable, cfg.Net.SASL.Mechanism, cfg.Net.SASL.User, cfg.Net.SASL.Password = true, mechanism, user, password
		cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaScram{hash: scram.SHA512} }
		cfg.Metadata.Retry.Max = 0
		return cfg
	}
	saramaRoundTrip(t, addr, "sasl-ssl-sarama-plain", sasl(sarama.SASLTypePlaintext, "alice", "alice-secret", b.clientTLS(false)))
	saramaRoundTrip(t, addr, "sasl-ssl-sarama-scram", sasl(sarama.SASLTypeSCRAMSHA512, "dora", "dora-512", b.clientTLS(false)))

	for _, c := range []struct {
		what string
		cfg  *sarama.Config
		want string
	}{
		{"wrong PLAIN password", sasl(sarama.SASLTypePlaintext, "alice", "wrong", b.clientTLS(false)), "Authentication failed: Invalid username or password"},
		{"wrong SCRAM password", sasl(sarama.SASLTypeSCRAMSHA512, "dora", "wrong", b.clientTLS(false)),
			"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"},
		{"untrusted certificate", sasl(sarama.SASLTypePlaintext, "alice", "alice-secret", untrustedTLS(t)), "certificate signed by unknown authority"},
	} {
		c.cfg.Version = sarama.V3_9_0_0
		_, err := sarama.NewClient([]string{addr}, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.what, err, c.want)
		}
	}
}

// kafkaGoRoundTrip writes one record with kafka-go (creating the topic if
// need be) and reads it back, with tlsConfig and mech (either may be nil).
func kafkaGoRoundTrip(t *testing.T, addr, topic string, tlsConfig *tls.Config, mech segsasl.Mechanism) {
	t.Helper()
	transport := &segkafka.Transport{TLS: tlsConfig, SASL: mech}
	w := &segkafka.Writer{Addr: segkafka.TCP(addr), Topic: topic, Transport: transport, AllowAutoTopicCreation: true, RequiredAcks: segkafka.RequireAll}
	var werr error
	// The first write may meet the topic while it is created.
	for attempt := 0; attempt < 20; attempt++ {
		if werr = w.WriteMessages(testContext(t), segkafka.Message{Value: []byte("v-" + topic)}); werr == nil ||
			!errors.Is(werr, segkafka.UnknownTopicOrPartition) && !errors.Is(werr, segkafka.LeaderNotAvailable) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.Close()
	if werr != nil {
		t.Fatalf("%s: write: %v", topic, werr)
	}
	r := segkafka.NewReader(segkafka.ReaderConfig{Brokers: []string{addr}, Topic: topic, Partition: 0, MaxWait: 100 * time.Millisecond,
		Dialer: &segkafka.Dialer{Timeout: 10 * time.Second, TLS: tlsConfig, SASLMechanism: mech}})
	m, err := r.ReadMessage(testContext(t))
	r.Close()
	if err != nil || string(m.Value) != "v-"+topic {
		t.Fatalf("%s: read %q, %v", topic, m.Value, err)
	}
}

func TestSASLSSLKafkaGo(t *testing.T) {
	b := startSASLSSLBroker(t)
	addr := b.ListenerAddr("SASL_SSL")
	scramDora, err := segscram.Mechanism(segscram.SHA512, "dora", "dora-512")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		topic string
		mech  segsasl.Mechanism
	}{
		{"sasl-ssl-kafka-go-plain", segplain.Mechanism{Username: "alice", Password: "alice-secret"}},
		{"sasl-ssl-kafka-go-scram", scramDora},
	} {
		kafkaGoRoundTrip(t, addr, c.topic, b.clientTLS(false), c.mech)
	}

	scramWrong, _ := segscram.Mechanism(segscram.SHA512, "dora", "wrong")
	for _, c := range []struct {
		what string
		d    *segkafka.Dialer
		want string
	}{
		{"wrong PLAIN password", &segkafka.Dialer{TLS: b.clientTLS(false), SASLMechanism: segplain.Mechanism{Username: "alice", Password: "wrong"}},
			"SASL Authentication Failed"},
		{"wrong SCRAM password", &segkafka.Dialer{TLS: b.clientTLS(false), SASLMechanism: scramWrong}, "SASL Authentication Failed"},
		{"untrusted certificate", &segkafka.Dialer{TLS: untrustedTLS(t), SASLMechanism: segplain.Mechanism{Username: "alice", Password: "alice-secret"}},
			"certificate signed by unknown authority"},
	} {
		c.d.Timeout = 10 * time.Second
		conn, err := c.d.DialContext(testContext(t), "tcp", addr)
		if err == nil {
			conn.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.what, err, c.want)
		}
	}
}

// On SASL_SSL, ssl.client.auth counts only with the listener prefix, as in
// Kafka ("SSL client authentication is enabled in brokers for SASL_SSL only
// if listener-prefixed config is specified"): a broker-wide
// ssl.client.auth=required does not ask a SASL client for a certificate;
// listener.name.sasl_ssl.ssl.client.auth=required does.
func TestSASLSSLClientAuthNeedsTheListenerPrefix(t *testing.T) {
	for _, c := range []struct {
		name     string
		extra    []karsttest.Option
		accepted bool
	}{
		{"broker-wide required", nil, true},
		{"listener-prefixed required", []karsttest.Option{karsttest.WithConfig("listener.name.sasl_ssl.ssl.client.auth", "required")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startTLSBroker(t, "required", append([]karsttest.Option{
				karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"),
				karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN"),
				karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", saslAdminJAAS)}, c.extra...)...)
			cl := saslClient(t, b.ListenerAddr("SASL_SSL"), plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
				kgo.DialTLSConfig(b.clientTLS(false)), kgo.RequestRetries(0))
			err := cl.Ping(testContext(t))
			if c.accepted && err != nil {
				t.Fatalf("a SASL client without a certificate was refused: %v", err)
			}
			if !c.accepted && err == nil {
				t.Fatal("a SASL client without a certificate was served with listener.name.sasl_ssl.ssl.client.auth=required")
			}
		})
	}
}
