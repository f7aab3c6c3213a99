package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/IBM/sarama"
	krb5client "github.com/jcmturner/gokrb5/v8/client"
	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/internal/sasl/kdctest"
	"github.com/karst-broker/karst/karsttest"
)

// startKerberosBroker runs a real MIT KDC and a broker whose
// SASL_PLAINTEXT listener enables GSSAPI (the keytab of kafka/host) and
// PLAIN for the test's admin; it returns the KDC and alice's keytab.
func startKerberosBroker(t *testing.T, host string, extra ...karsttest.Option) (*karsttest.Broker, *kdctest.KDC, string) {
	t.Helper()
	kdc, alice, opts := kerberosListener(t, host, "SASL_PLAINTEXT")
	return karsttest.Start(t, append(opts, extra...)...), kdc, alice
}

// kerberosListener starts the KDC and returns the options that enable
// GSSAPI (the keytab of kafka/host) and the admin's PLAIN on the listener
// named after its security protocol.
func kerberosListener(t *testing.T, host, protocol string) (*kdctest.KDC, string, []karsttest.Option) {
	t.Helper()
	kdc := kdctest.Start(t)
	t.Setenv("KRB5_CONFIG", kdc.Krb5Conf) // the broker's default realm, as the JVM's java.security.krb5.conf
	principal := "kafka/" + host + "@" + kdctest.Realm
	service := kdc.AddPrincipal(t, principal)
	alice := kdc.AddPrincipal(t, "alice@"+kdctest.Realm)
	prefix := "listener.name." + strings.ToLower(protocol) + "."
	return kdc, alice, []karsttest.Option{
		karsttest.WithConfig("listeners", protocol+"://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "GSSAPI,PLAIN"),
		karsttest.WithConfig("sasl.kerberos.service.name", "kafka"),
		karsttest.WithConfig(prefix+"plain.sasl.jaas.config", saslAdminJAAS),
		karsttest.WithConfig(prefix+"gssapi.sasl.jaas.config",
			`com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="`+service+`" principal="`+principal+`";`),
	}
}

func saramaKerberos(kdc *kdctest.KDC, keytab, spn string, version int16) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Net.SASL.Enable, cfg.Net.SASL.Mechanism, cfg.Net.SASL.Version = true, sarama.SASLTypeGSSAPI, version
	// sarama sends no ApiVersions before a v0 handshake, as Kafka's
	// clients before SaslAuthenticate did.
	cfg.ApiVersionsRequest = version != sarama.SASLHandshakeV0
	cfg.Net.SASL.GSSAPI = sarama.GSSAPIConfig{
		AuthType: sarama.KRB5_KEYTAB_AUTH, KeyTabPath: keytab, KerberosConfigPath: kdc.Krb5Conf,
		ServiceName: "kafka", Username: "alice", Realm: kdctest.Realm, DisablePAFXFAST: true,
		// The broker is reached at 127.0.0.1; its principal names localhost.
		BuildSpn: func(string, string) string { return spn },
	}
	return cfg
}

// sarama authenticates over SaslHandshake v0's bare tokens and v1's
// SaslAuthenticate against a broker whose keytab a real KDC wrote.
func TestSASLGSSAPISarama(t *testing.T) {
	b, kdc, alice := startKerberosBroker(t, "localhost")
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	admin := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	for _, topic := range []string{"gssapi-v0", "gssapi-v1"} {
		if _, err := admin.CreateTopic(testContext(t), 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	authenticated := b.Authentications()
	saramaRoundTrip(t, addr, "gssapi-v0", saramaKerberos(kdc, alice, "kafka/localhost", sarama.SASLHandshakeV0))
	saramaRoundTrip(t, addr, "gssapi-v1", saramaKerberos(kdc, alice, "kafka/localhost", sarama.SASLHandshakeV1))
	if b.Authentications() == authenticated {
		t.Fatal("no GSSAPI authentication counted")
	}

	// A ticket for another service of the realm is refused with Kafka's
	// error, and the refused client reaches no handler.
	kdc.AddPrincipal(t, "kafka/otherhost@"+kdctest.Realm)
	handled := b.RequestsHandled()
	cfg := saramaKerberos(kdc, alice, "kafka/otherhost", sarama.SASLHandshakeV1)
	cfg.Version = sarama.V3_9_0_0
	// ApiVersions is answered before authentication, as Kafka does;
	// without it every request of the client meets the gate.
	cfg.ApiVersionsRequest, cfg.Metadata.Retry.Max = false, 0
	_, err := sarama.NewClient([]string{addr}, cfg)
	if !errors.Is(err, sarama.ErrSASLAuthenticationFailed) || !strings.Contains(err.Error(), "invalid credentials with SASL mechanism GSSAPI") {
		t.Fatalf("a ticket for kafka/otherhost: %v, want SASL_AUTHENTICATION_FAILED", err)
	}
	if got := b.RequestsHandled(); got != handled {
		t.Fatalf("%d requests of a refused client reached a handler", got-handled)
	}
}

// franz-go's GSSAPI is its own module (pkg/sasl/kerberos on gokrb5). It
// asks for a ticket to kafka/<the host it dialled>, so the broker's
// principal names 127.0.0.1, the address it listens on and advertises.
func TestSASLGSSAPIFranzGo(t *testing.T) {
	b, kdc, aliceKeytab := startKerberosBroker(t, "127.0.0.1")
	franzGoKerberos(t, b, kdc, aliceKeytab, b.ListenerAddr("SASL_PLAINTEXT"), "gssapi-franz-go")
}

// The same exchange over SASL_SSL: the GSSAPI tokens travel inside TLS,
// with the stores of startTLSBroker.
func TestSASLGSSAPIFranzGoOverSASLSSL(t *testing.T) {
	kdc, aliceKeytab, opts := kerberosListener(t, "127.0.0.1", "SASL_SSL")
	b := startTLSBroker(t, "none", opts...)
	addr := b.ListenerAddr("SASL_SSL")
	franzGoKerberos(t, b.Broker, kdc, aliceKeytab, addr, "gssapi-franz-go-sasl-ssl", kgo.DialTLSConfig(b.clientTLS(false)))

}

func franzGoKerberos(t *testing.T, b *karsttest.Broker, kdc *kdctest.KDC, aliceKeytab, addr, topic string, opts ...kgo.Opt) {
	t.Helper()
	cfg, err := krb5config.Load(kdc.Krb5Conf)
	if err != nil {
		t.Fatal(err)
	}
	login := func(keytabPath, user string) *krb5client.Client {
		kt, err := keytab.Load(keytabPath)
		if err != nil {
			t.Fatal(err)
		}
		return krb5client.NewWithKeytab(user, kdctest.Realm, kt, cfg, krb5client.DisablePAFXFAST(true))
	}
	authenticated := b.Authentications()
	cl := saslClient(t, addr, kerberos.Auth{Client: login(aliceKeytab, "alice"), Service: "kafka"}.AsMechanismWithClose(), opts...)
	produceAndReadBack(t, cl, topic)
	if b.Authentications() == authenticated {
		t.Fatal("no GSSAPI authentication counted")
	}

	// A ticket for another service of the realm on the same host is
	// refused with Kafka's error.
	kdc.AddPrincipal(t, "other/127.0.0.1@"+kdctest.Realm)
	wantSASLFailure(t, addr, kerberos.Auth{Client: login(aliceKeytab, "alice"), Service: "other"}.AsMechanismWithClose(),
		kerr.SaslAuthenticationFailed, "invalid credentials with SASL mechanism GSSAPI", opts...)
}
