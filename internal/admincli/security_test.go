package admincli

import (
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
)

const adminJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";`

// secureBroker serves SASL_SSL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and
// SSL with a required client certificate, both signed by ca.
type secureBroker struct {
	*karsttest.Broker
	ca  *tlstest.CA
	dir string
}

func startSecureBroker(t *testing.T) *secureBroker {
	t.Helper()
	ca := tlstest.NewCA(t, "cli-test-ca")
	dir := t.TempDir()
	b := karsttest.Start(t, karsttest.WithAutoCreateTopics(false),
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0"),
		karsttest.WithConfig("ssl.keystore.type", "PKCS12"),
		karsttest.WithConfig("ssl.keystore.location", tlstest.WriteFile(t, dir, "broker.p12", ca.Server(t, "broker").PKCS12(t, "ks-secret"))),
		karsttest.WithConfig("ssl.keystore.password", "ks-secret"),
		karsttest.WithConfig("ssl.truststore.type", "PEM"),
		karsttest.WithConfig("ssl.truststore.location", tlstest.WriteFile(t, dir, "broker-trust.pem", []byte(ca.PEM()))),
		karsttest.WithConfig("listener.name.ssl.ssl.client.auth", "required"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", adminJAAS))
	return &secureBroker{Broker: b, ca: ca, dir: dir}
}

// properties writes a client properties file.
func (b *secureBroker) properties(t *testing.T, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(b.dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCommandConfigSASLSSL: --command-config takes security.protocol,
// the trust store (PEM, JKS or librdkafka's ssl.ca.location), sasl.mechanism
// and sasl.jaas.config as Kafka's tools do: the PLAIN admin makes a SCRAM
// user with karst user, which then manages topics over SCRAM-SHA-512; a
// wrong password, an untrusted broker and a missing mechanism fail.
func TestCommandConfigSASLSSL(t *testing.T) {
	b := startSecureBroker(t)
	c := &cli{t: t, bootstrap: b.ListenerAddr("SASL_SSL")}
	pemTrust := tlstest.WriteFile(t, b.dir, "ca.pem", []byte(b.ca.PEM()))
	jksTrust := tlstest.WriteFile(t, b.dir, "ca.jks", b.ca.JKSTrustStore(t, "ts-secret"))

	admin := b.properties(t, "admin.properties", "security.protocol=SASL_SSL", "sasl.mechanism=PLAIN",
		"ssl.truststore.type=PEM", "ssl.truststore.location="+pemTrust,
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";`)
	if out := c.okWithInput("carol-512\n", "user", "set", "carol", "--mechanism", "SCRAM-SHA-512", "--command-config", admin); !strings.Contains(out, "set SCRAM-SHA-512 credential of user carol") {
		t.Fatalf("user set over SASL_SSL PLAIN:\n%s", out)
	}
	carol := b.properties(t, "carol.properties", "security.protocol=sasl_ssl", "sasl.mechanism=SCRAM-SHA-512",
		"ssl.truststore.location="+jksTrust, "ssl.truststore.password=ts-secret",
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="carol" password="carol-512";`)
	c.ok("topic", "create", "secure-orders", "--partitions", "2", "--command-config", carol)
	if r := row(t, c.ok("topic", "list", "--command-config", carol), "secure-orders"); r[1] != "2" {
		t.Errorf("topic list over SCRAM: %v", r)
	}
	// kcat's -F names: ssl.ca.location, sasl.username, sasl.password; no
	// host name check, while the chain is still verified.
	kcatStyle := b.properties(t, "kcat.properties", "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512",
		"ssl.ca.location="+pemTrust, "sasl.username=carol", "sasl.password=carol-512", "ssl.endpoint.identification.algorithm=")
	c.okWithInput("k1\tv1\n", "produce", "secure-orders", "-K", "\t", "-p", "0", "--command-config", kcatStyle)
	if out := c.ok("consume", "secure-orders", "-o", "beginning", "-e", "-K", "=", "--command-config", kcatStyle); out != "k1=v1\n" {
		t.Errorf("consume over SASL_SSL: %q", out)
	}

	otherCA := tlstest.WriteFile(t, b.dir, "other.pem", []byte(tlstest.NewCA(t, "other-ca").PEM()))
	for _, bad := range []struct {
		what  string
		lines []string
		want  string
	}{
		{"a wrong SCRAM password", []string{"security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512", "ssl.ca.location=" + pemTrust,
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="carol" password="wrong";`}, "invalid credentials"},
		{"an untrusted broker", []string{"security.protocol=SASL_SSL", "sasl.mechanism=PLAIN", "ssl.ca.location=" + otherCA,
			"sasl.username=admin", "sasl.password=admin-secret"}, "certificate signed by unknown authority"},
		{"an untrusted broker without the host name check", []string{"security.protocol=SASL_SSL", "sasl.mechanism=PLAIN", "ssl.ca.location=" + otherCA,
			"sasl.username=admin", "sasl.password=admin-secret", "ssl.endpoint.identification.algorithm="}, "certificate signed by unknown authority"},
		{"no mechanism", []string{"security.protocol=SASL_SSL", "ssl.ca.location=" + pemTrust}, "sasl.mechanism is not set"},
		{"a PEM file as a JKS store", []string{"security.protocol=SASL_SSL", "ssl.truststore.location=" + pemTrust}, "set ssl.truststore.type=PEM"},
		{"an unknown protocol", []string{"security.protocol=TLS"}, "security.protocol=TLS"},
		{"a Kerberos login module", []string{"security.protocol=SASL_SSL", "sasl.mechanism=PLAIN", "ssl.ca.location=" + pemTrust,
			`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required;`}, "want PlainLoginModule or ScramLoginModule"},
	} {
		file := b.properties(t, "bad.properties", bad.lines...)
		if errOut := c.fails(1, "cluster", "info", "--timeout", "10s", "--command-config", file); !strings.Contains(errOut, bad.want) {
			t.Errorf("%s: %s, want %q", bad.what, errOut, bad.want)
		}
	}
}

// TestCommandConfigSSLClientCertificate: an SSL listener that requires a
// client certificate accepts the key store of --command-config (PKCS12,
// and PEM with an encrypted key) and refuses a client without one.
func TestCommandConfigSSLClientCertificate(t *testing.T) {
	b := startSecureBroker(t)
	c := &cli{t: t, bootstrap: b.ListenerAddr("SSL")}
	pemTrust := tlstest.WriteFile(t, b.dir, "ca.pem", []byte(b.ca.PEM()))
	client := b.ca.Client(t, pkix.Name{CommonName: "ops"})
	p12 := b.properties(t, "p12.properties", "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+pemTrust,
		"ssl.keystore.type=PKCS12", "ssl.keystore.location="+tlstest.WriteFile(t, b.dir, "client.p12", client.PKCS12(t, "cs")), "ssl.keystore.password=cs")
	if out := c.ok("cluster", "info", "--command-config", p12); !strings.Contains(out, "CONTROLLER") {
		t.Errorf("cluster info over SSL with a PKCS12 client key store:\n%s", out)
	}
	pemKey := b.properties(t, "pem.properties", "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+pemTrust,
		"ssl.keystore.type=PEM", "ssl.keystore.location="+tlstest.WriteFile(t, b.dir, "client.pem", []byte(client.ChainPEM()+client.KeyPEM(t, "kp"))),
		"ssl.key.password=kp")
	c.ok("topic", "list", "--command-config", pemKey)
	noCert := b.properties(t, "nocert.properties", "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+pemTrust)
	if errOut := c.fails(1, "cluster", "info", "--timeout", "10s", "--command-config", noCert); !strings.Contains(errOut, "certificate required") {
		t.Errorf("SSL without a client certificate: %s", errOut)
	}
}
