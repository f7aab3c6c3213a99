package integration

import (
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
)

// confluentRoundTrip produces one record with confluent-kafka-go
// (librdkafka) and reads it back with an assigned consumer, both with the
// security settings of conf.
func confluentRoundTrip(t *testing.T, conf kafka.ConfigMap, topic string) {
	t.Helper()
	ctx := testContext(t)
	withConf := func(extra kafka.ConfigMap) *kafka.ConfigMap {
		c := kafka.ConfigMap{}
		for k, v := range conf {
			c[k] = v
		}
		for k, v := range extra {
			c[k] = v
		}
		return &c
	}
	p, err := kafka.NewProducer(withConf(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	delivered := make(chan kafka.Event, 1)
	value := "v-" + topic
	if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte(value)}, delivered); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-delivered:
		if m := e.(*kafka.Message); m.TopicPartition.Error != nil {
			t.Fatalf("%s: delivery: %v", topic, m.TopicPartition.Error)
		}
	case <-ctx.Done():
		t.Fatalf("%s: no delivery report", topic)
	}
	c, err := kafka.NewConsumer(withConf(kafka.ConfigMap{"group.id": "unused-" + topic, "enable.auto.commit": false}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Assign([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: kafka.OffsetBeginning}}); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil {
		if m, ok := c.Poll(100).(*kafka.Message); ok {
			if m.TopicPartition.Error != nil || string(m.Value) != value {
				t.Fatalf("%s: read %q, %v", topic, m.Value, m.TopicPartition.Error)
			}
			return
		}
	}
	t.Fatalf("%s: nothing read back", topic)
}

// confluentRefused waits for the error librdkafka reports when conf's
// client is refused, and checks it carries want.
func confluentRefused(t *testing.T, what string, conf kafka.ConfigMap, want string) {
	t.Helper()
	p, err := kafka.NewProducer(&conf)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := testContext(t)
	var seen []string
	for {
		select {
		case e := <-p.Events():
			if kerr, ok := e.(kafka.Error); ok {
				if strings.Contains(kerr.Error(), want) {
					return
				}
				seen = append(seen, kerr.Error())
			}
		case <-ctx.Done():
			t.Fatalf("%s: no error with %q; saw %q", what, want, seen)
		}
	}
}

// TestConfluentKafkaGoSASL: confluent-kafka-go (librdkafka) logs in with
// PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (librdkafka's
// unsecured JWT, which Kafka's default OAUTHBEARER validator accepts) over
// SASL_PLAINTEXT and SASL_SSL, and over SSL without a client certificate;
// a wrong PLAIN or SCRAM password, a mechanism the listener does not
// enable and an untrusted broker certificate are refused with Kafka's
// errors.
func TestConfluentKafkaGoSASL(t *testing.T) {
	const mechanisms = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"
	b := startTLSBroker(t, "none",
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,PLAIN_ONLY://127.0.0.1:0"),
		karsttest.WithConfig("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,PLAIN_ONLY:SASL_PLAINTEXT"),
		karsttest.WithConfig("sasl.enabled.mechanisms", mechanisms),
		karsttest.WithConfig("listener.name.plain_only.sasl.enabled.mechanisms", "PLAIN"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config", saslAdminJAAS),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", saslAdminJAAS),
		karsttest.WithConfig("listener.name.plain_only.plain.sasl.jaas.config", saslAdminJAAS))
	ca := tlstest.WriteFile(t, b.dir, "ca.pem", []byte(b.ca.PEM()))
	stranger := tlstest.WriteFile(t, b.dir, "stranger.pem", []byte(tlstest.NewCA(t, "stranger-ca").PEM()))
	admin := kadm.NewClient(saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	ctx := testContext(t)
	if _, err := admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "bob", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "bob-256"},
		{User: "carol", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "carol-512"},
	}); err != nil {
		t.Fatal(err)
	}
	credentials := map[string]kafka.ConfigMap{
		"PLAIN":         {"sasl.username": "alice", "sasl.password": "alice-secret"},
		"SCRAM-SHA-256": {"sasl.username": "bob", "sasl.password": "bob-256"},
		"SCRAM-SHA-512": {"sasl.username": "carol", "sasl.password": "carol-512"},
		"OAUTHBEARER":   {"enable.sasl.oauthbearer.unsecure.jwt": true, "sasl.oauthbearer.config": "principal=olivia"},
	}
	conf := func(listener, protocol, mechanism string, extra kafka.ConfigMap) kafka.ConfigMap {
		c := kafka.ConfigMap{"bootstrap.servers": b.ListenerAddr(listener), "security.protocol": protocol}
		if mechanism != "" {
			c["sasl.mechanisms"] = mechanism
		}
		if strings.HasSuffix(protocol, "SSL") {
			c["ssl.ca.location"] = ca
		}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	var topics []string
	for _, protocol := range []string{"SASL_PLAINTEXT", "SASL_SSL"} {
		for _, mechanism := range strings.Split(mechanisms, ",") {
			topics = append(topics, "librdkafka-"+strings.ToLower(protocol+"-"+mechanism))
		}
	}
	topics = append(topics, "librdkafka-ssl-no-client-cert")
	for _, topic := range topics {
		if _, err := admin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	for _, protocol := range []string{"SASL_PLAINTEXT", "SASL_SSL"} {
		for _, mechanism := range strings.Split(mechanisms, ",") {
			t.Run(protocol+"/"+mechanism, func(t *testing.T) {
				confluentRoundTrip(t, conf(protocol, protocol, mechanism, credentials[mechanism]),
					"librdkafka-"+strings.ToLower(protocol+"-"+mechanism))
			})
		}
	}
	t.Run("SSL without a client certificate", func(t *testing.T) {
		confluentRoundTrip(t, conf("SSL", "SSL", "", nil), "librdkafka-ssl-no-client-cert")
	})

	t.Run("refused", func(t *testing.T) {
		failedBefore := b.AuthenticationsFailed()
		confluentRefused(t, "wrong PLAIN password", conf("SASL_SSL", "SASL_SSL", "PLAIN", kafka.ConfigMap{"sasl.username": "alice", "sasl.password": "wrong"}),
			"Authentication failed: Invalid username or password")
		confluentRefused(t, "wrong SCRAM password", conf("SASL_PLAINTEXT", "SASL_PLAINTEXT", "SCRAM-SHA-512", kafka.ConfigMap{"sasl.username": "carol", "sasl.password": "wrong"}),
			"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512")
		confluentRefused(t, "mechanism not enabled", conf("PLAIN_ONLY", "SASL_PLAINTEXT", "SCRAM-SHA-256", credentials["SCRAM-SHA-256"]),
			"Unsupported SASL mechanism: broker's supported mechanisms: PLAIN")
		confluentRefused(t, "untrusted broker certificate", conf("SASL_SSL", "SASL_SSL", "PLAIN", kafka.ConfigMap{"sasl.username": "alice", "sasl.password": "alice-secret", "ssl.ca.location": stranger}),
			"certificate verify failed")
		if got := b.AuthenticationsFailed() - failedBefore; got < 4 {
			t.Fatalf("%d failed authentications counted for four refused clients", got)
		}
	})
}
