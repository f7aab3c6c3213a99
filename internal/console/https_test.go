package console_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
)

// TestConsoleOverHTTPS: with a key store in karst.console.ssl.* the
// console serves HTTPS only, with that certificate: a PEM file holding the
// chain and an encrypted key (karst.console.ssl.key.password), a PKCS12
// store, or the key and chain inline. A client trusting the CA reads the
// pages; one that does not is refused in the handshake; plain HTTP to the
// same port gets Go's 400 for an HTTP request to an HTTPS server.
func TestConsoleOverHTTPS(t *testing.T) {
	ca := tlstest.NewCA(t, "console-https-ca")
	pair := ca.Server(t, "console")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts []karsttest.Option
	}{
		{"pem file", []karsttest.Option{
			karsttest.WithConfig("karst.console.ssl.keystore.location", tlstest.WriteFile(t, dir, "console.pem", []byte(pair.ChainPEM()+pair.KeyPEM(t, "key-secret")))),
			karsttest.WithConfig("karst.console.ssl.key.password", "key-secret")}},
		{"pkcs12", []karsttest.Option{
			karsttest.WithConfig("karst.console.ssl.keystore.type", "PKCS12"),
			karsttest.WithConfig("karst.console.ssl.keystore.location", tlstest.WriteFile(t, dir, "console.p12", pair.PKCS12(t, "ks-secret"))),
			karsttest.WithConfig("karst.console.ssl.keystore.password", "ks-secret")}},
		{"inline pem", []karsttest.Option{
			karsttest.WithConfig("karst.console.ssl.keystore.certificate.chain", pair.ChainPEM()),
			karsttest.WithConfig("karst.console.ssl.keystore.key", pair.KeyPEM(t, ""))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			b := karsttest.Start(t, append(tc.opts, karsttest.WithConfig("karst.console.listener", "127.0.0.1:0"))...)
			base := b.ConsoleURL()
			if !strings.HasPrefix(base, "https://127.0.0.1:") {
				t.Fatalf("console URL %q, want https://127.0.0.1:...", base)
			}
			trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
			resp, body := get(t, ctx, trusting, base+"/topics")
			if resp.StatusCode != 200 || !strings.Contains(body, `<table id="topics">`) || resp.TLS == nil ||
				resp.TLS.PeerCertificates[0].Subject.CommonName != "console" {
				t.Fatalf("GET /topics over HTTPS: %d, TLS %v\n%s", resp.StatusCode, resp.TLS != nil, body)
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/", nil)
			if _, err := http.DefaultClient.Do(req); err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("a client not trusting the CA: %v, want a certificate error", err)
			}
			resp, body = get(t, ctx, http.DefaultClient, "http"+strings.TrimPrefix(base, "https")+"/topics")
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "HTTPS") {
				t.Errorf("plain HTTP: %d %q, want 400 for an HTTP request to an HTTPS server", resp.StatusCode, body)
			}
		})
	}
}
