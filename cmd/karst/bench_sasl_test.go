package main

import (
	"context"
	"crypto/tls"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
)

// TestBenchOverSASLSSL: karst bench -command-config authenticates with
// SCRAM-SHA-512 and PLAIN over a SASL_SSL listener: produce, consume
// (franz-go and raw Fetch), e2e and idle connections (raw SaslHandshake
// and SaslAuthenticate) all move their records or open their connections
// as authenticated clients; a wrong password fails the run with the
// broker's SASL_AUTHENTICATION_FAILED.
func TestBenchOverSASLSSL(t *testing.T) {
	bin := buildBinary(t)
	ca := tlstest.NewCA(t, "bench-sasl-ca")
	dir := t.TempDir()
	b := karsttest.Start(t, karsttest.WithAutoCreateTopics(false),
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"),
		karsttest.WithConfig("ssl.keystore.type", "PKCS12"),
		karsttest.WithConfig("ssl.keystore.location", tlstest.WriteFile(t, dir, "broker.p12", ca.Server(t, "broker").PKCS12(t, "ks-secret"))),
		karsttest.WithConfig("ssl.keystore.password", "ks-secret"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config",
			`org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";`))
	addr := b.ListenerAddr("SASL_SSL")
	trust := tlstest.WriteFile(t, dir, "ca.pem", []byte(ca.PEM()))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The SCRAM user, made by the PLAIN admin over the same listener.
	tlsCfg := &tls.Config{RootCAs: ca.Pool()}
	admin, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTLSConfig(tlsCfg),
		kgo.SASL(plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := kadm.NewClient(admin).AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{
		User: "bench", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "bench-512"}}); err != nil {
		t.Fatalf("creating the SCRAM user: %v", err)
	}

	props := func(name string, lines ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	common := []string{"security.protocol=SASL_SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + trust}
	scram := props("scram.properties", append(common, "sasl.mechanism=SCRAM-SHA-512",
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bench" password="bench-512";`)...)
	plainProps := props("plain.properties", append(common, "sasl.mechanism=PLAIN",
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";`)...)
	wrong := props("wrong.properties", append(common, "sasl.mechanism=SCRAM-SHA-512",
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bench" password="wrong";`)...)

	bench := func(wantOK bool, args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, bin, append([]string{"bench"}, args...)...).CombinedOutput()
		if wantOK && err != nil {
			t.Fatalf("karst bench %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if !wantOK && err == nil {
			t.Fatalf("karst bench %s succeeded, want a failure:\n%s", strings.Join(args, " "), out)
		}
		return string(out)
	}
	field := func(out, key string) string {
		m := regexp.MustCompile(`(?m)^mode=.* ` + key + `=([0-9.]+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %s in:\n%s", key, out)
		}
		return m[1]
	}

	authBefore := b.Authentications()
	out := bench(true, "produce", "-brokers", addr, "-command-config", scram, "-topic", "sasl-bench", "-partitions", "2",
		"-record-size", "512", "-records", "2000", "-duration", "30s")
	if got := field(out, "records"); got != "2000" {
		t.Fatalf("produce over SCRAM-SHA-512 wrote %s records, want 2000:\n%s", got, out)
	}
	for _, client := range []string{"franz-go", "raw"} {
		out = bench(true, "consume", "-brokers", addr, "-command-config", scram, "-topic", "sasl-bench", "-records", "2000",
			"-duration", "30s", "-client", client)
		if got := field(out, "records"); got != "2000" {
			t.Errorf("consume -client %s over SCRAM-SHA-512 read %s records, want 2000:\n%s", client, got, out)
		}
	}
	out = bench(true, "e2e", "-brokers", addr, "-command-config", plainProps, "-topic", "sasl-e2e", "-partitions", "1",
		"-record-size", "256", "-rate", "500", "-duration", "2s")
	if field(out, "received") == "0" || field(out, "lost") != "0" {
		t.Errorf("e2e over PLAIN received nothing or lost records:\n%s", out)
	}
	out = bench(true, "connections", "-brokers", addr, "-command-config", scram, "-conns", "20", "-dialers", "4", "-hold", "100ms")
	if !strings.Contains(out, "mode=connections") || strings.Contains(out, "error=") {
		t.Errorf("connections over SCRAM-SHA-512:\n%s", out)
	}
	// 20 raw connections, the raw consumer's one, and at least one per
	// franz-go client (the broker counts a successful SASL exchange).
	if n := b.Authentications() - authBefore; n < 25 {
		t.Errorf("%d authentications during the runs, want at least 25", n)
	}

	for _, mode := range [][]string{
		{"produce", "-topic", "sasl-bench", "-records", "10", "-duration", "10s"},
		{"connections", "-conns", "1", "-hold", "10ms"},
	} {
		out = bench(false, append(append(mode[:1:1], "-brokers", addr, "-command-config", wrong), mode[1:]...)...)
		if !strings.Contains(out, "SASL_AUTHENTICATION_FAILED") {
			t.Errorf("%s with a wrong password: no SASL_AUTHENTICATION_FAILED in:\n%s", mode[0], out)
		}
	}
	if out := bench(false, "produce", "-brokers", addr, "-command-config", scram, "-tls-ca", trust); !strings.Contains(out, "drop -tls-ca") {
		t.Errorf("-command-config with -tls-ca:\n%s", out)
	}
}
