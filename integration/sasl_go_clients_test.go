package integration

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	segsasl "github.com/segmentio/kafka-go/sasl"
	segplain "github.com/segmentio/kafka-go/sasl/plain"
	segscram "github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	franzscram "github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/xdg-go/scram"

	"github.com/karst-broker/karst/karsttest"
)

// saramaToken hands sarama a fixed OAUTHBEARER token.
type saramaToken string

func (s saramaToken) Token() (*sarama.AccessToken, error) {
	return &sarama.AccessToken{Token: string(s)}, nil
}

// addBobAndCarol gives bob a SCRAM-SHA-256 and carol a SCRAM-SHA-512
// credential through the PLAINTEXT listener, and returns that admin client.
func addBobAndCarol(t *testing.T, b *tlsBroker) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	admin := kadm.NewClient(cl)
	if _, err := admin.AlterUserSCRAMs(testContext(t), nil, []kadm.UpsertSCRAM{
		{User: "bob", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "bob-256"},
		{User: "carol", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "carol-512"},
	}); err != nil {
		t.Fatal(err)
	}
	return admin
}

// TestSaramaAndKafkaGoEveryMechanism: sarama logs in with PLAIN,
// SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (an unsecured token, which
// Kafka's default validator accepts) and kafka-go with PLAIN and both SCRAM
// mechanisms (it has no OAUTHBEARER), each over SASL_PLAINTEXT and SASL_SSL;
// both over SSL with and without a client certificate (ssl.client.auth
// requested). sarama's expired token and wrong SCRAM-SHA-256 password are
// refused with Kafka's errors.
func TestSaramaAndKafkaGoEveryMechanism(t *testing.T) {
	b := startTLSBroker(t, "requested",
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"),
		karsttest.WithConfig("listener.name.sasl_ssl.ssl.client.auth", "none"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config", saslAdminJAAS),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", saslAdminJAAS))
	ctx := testContext(t)
	admin := addBobAndCarol(t, b)
	token := unsecuredToken(t, map[string]any{"sub": "olivia", "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	expired := unsecuredToken(t, map[string]any{"sub": "olivia", "iat": time.Now().Add(-2 * time.Hour).Unix(), "exp": time.Now().Add(-time.Hour).Unix()})

	saramaConfig := func(protocol, mechanism, user, password string, tlsConfig *tls.Config) *sarama.Config {
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V3_9_0_0
		cfg.Metadata.Retry.Max = 0
		if tlsConfig != nil {
			cfg.Net.TLS.Enable, cfg.Net.TLS.Config = true, tlsConfig
		}
		if mechanism == "" {
			return cfg
		}
		cfg.Net.SASL.Enable, cfg.Net.SASL.Mechanism = true, sarama.SASLMechanism(mechanism)
		cfg.Net.SASL.User, cfg.Net.SASL.Password = user, password
		switch mechanism {
		case sarama.SASLTypeSCRAMSHA256:
			cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaScram{hash: scram.SHA256} }
		case sarama.SASLTypeSCRAMSHA512:
			cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaScram{hash: scram.SHA512} }
		case sarama.SASLTypeOAuth:
			cfg.Net.SASL.TokenProvider = saramaToken(password)
		}
		return cfg
	}
	users := map[string][2]string{
		sarama.SASLTypePlaintext: {"alice", "alice-secret"}, sarama.SASLTypeSCRAMSHA256: {"bob", "bob-256"},
		sarama.SASLTypeSCRAMSHA512: {"carol", "carol-512"}, sarama.SASLTypeOAuth: {"", token},
	}
	scram256, _ := segscram.Mechanism(segscram.SHA256, "bob", "bob-256")
	scram512, _ := segscram.Mechanism(segscram.SHA512, "carol", "carol-512")
	kafkaGoMechanisms := map[string]segsasl.Mechanism{
		"PLAIN": segplain.Mechanism{Username: "alice", Password: "alice-secret"}, "SCRAM-SHA-256": scram256, "SCRAM-SHA-512": scram512,
	}
	for _, protocol := range []string{"SASL_PLAINTEXT", "SASL_SSL"} {
		var tlsConfig *tls.Config
		if protocol == "SASL_SSL" {
			tlsConfig = b.clientTLS(false)
		}
		addr := b.ListenerAddr(protocol)
		for _, mechanism := range []string{sarama.SASLTypePlaintext, sarama.SASLTypeSCRAMSHA256, sarama.SASLTypeSCRAMSHA512, sarama.SASLTypeOAuth} {
			topic := strings.ToLower("sarama-" + protocol + "-" + mechanism)
			t.Run("sarama/"+protocol+"/"+mechanism, func(t *testing.T) {
				if _, err := admin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
					t.Fatal(err)
				}
				u := users[mechanism]
				saramaRoundTrip(t, addr, topic, saramaConfig(protocol, mechanism, u[0], u[1], tlsConfig))
			})
		}
		for _, mechanism := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
			t.Run("kafka-go/"+protocol+"/"+mechanism, func(t *testing.T) {
				kafkaGoRoundTrip(t, addr, strings.ToLower("kafka-go-"+protocol+"-"+mechanism), tlsConfig, kafkaGoMechanisms[mechanism])
			})
		}
	}
	for _, withCert := range []bool{true, false} {
		name := "SSL without a client certificate"
		if withCert {
			name = "SSL with a client certificate"
		}
		t.Run(name, func(t *testing.T) {
			topic := strings.ReplaceAll(strings.ToLower(name), " ", "-")
			if _, err := admin.CreateTopic(ctx, 1, 1, nil, "sarama-"+topic); err != nil {
				t.Fatal(err)
			}
			saramaRoundTrip(t, b.ListenerAddr("SSL"), "sarama-"+topic, saramaConfig("SSL", "", "", "", b.clientTLS(withCert)))
			kafkaGoRoundTrip(t, b.ListenerAddr("SSL"), "kafka-go-"+topic, b.clientTLS(withCert), nil)
		})
	}

	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct {
			what string
			cfg  *sarama.Config
			want string
		}{
			// sarama answers the error challenge with the four characters
			// `\x01` (a raw string), not the byte 0x01: Kafka reads them as a
			// malformed client message, a SaslException, and answers with
			// its generic text, not the challenge's {"status":"invalid_token"}.
			{"expired token", saramaConfig("SASL_PLAINTEXT", sarama.SASLTypeOAuth, "", expired, nil),
				"Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER"},
			{"wrong SCRAM-SHA-256 password", saramaConfig("SASL_SSL", sarama.SASLTypeSCRAMSHA256, "bob", "wrong", b.clientTLS(false)),
				"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"},
		} {
			addr := b.ListenerAddr("SASL_PLAINTEXT")
			if c.cfg.Net.TLS.Enable {
				addr = b.ListenerAddr("SASL_SSL")
			}
			_, err := sarama.NewClient([]string{addr}, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want an error with %q", c.what, err, c.want)
			}
		}
	})
}

// TestFranzGoEveryMechanismOverSASLSSL: franz-go logs in with PLAIN,
// SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER over SASL_SSL and
// round-trips a record with each.
func TestFranzGoEveryMechanismOverSASLSSL(t *testing.T) {
	b := startTLSBroker(t, "none",
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", saslAdminJAAS))
	addBobAndCarol(t, b)
	token := unsecuredToken(t, map[string]any{"sub": "olivia", "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	for name, m := range map[string]sasl.Mechanism{
		"plain":         plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
		"scram-sha-256": franzscram.Auth{User: "bob", Pass: "bob-256"}.AsSha256Mechanism(),
		"scram-sha-512": franzscram.Auth{User: "carol", Pass: "carol-512"}.AsSha512Mechanism(),
		"oauthbearer":   oauth.Auth{Token: token}.AsMechanism(),
	} {
		t.Run(name, func(t *testing.T) {
			cl := saslClient(t, b.ListenerAddr("SASL_SSL"), m, kgo.DialTLSConfig(b.clientTLS(false)))
			produceAndReadBack(t, cl, "franz-go-sasl-ssl-"+name)
		})
	}
}
