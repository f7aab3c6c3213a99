package node

import (
	"crypto/tls"
	"net"
	"strings"
	"testing"

	"github.com/karst-broker/karst/internal/sasl"
	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/internal/server"
)

// TestConsoleListenerChoice: without karst.console.kafka.listener the
// console reads through the first PLAINTEXT listener, else the first
// SASL_PLAINTEXT one, else SASL_SSL, else SSL (where it may present the
// broker's own certificate); a named listener is used whatever its
// security protocol.
func TestConsoleListenerChoice(t *testing.T) {
	plain := server.Listener{Name: "INTERNAL"}
	sasl := server.Listener{Name: "CLIENTS", SecurityProtocol: "SASL_PLAINTEXT"}
	tls := server.Listener{Name: "SECURE", SecurityProtocol: "SSL"}
	saslTLS := server.Listener{Name: "EXTERNAL", SecurityProtocol: "SASL_SSL"}
	for _, c := range []struct {
		listeners []server.Listener
		name      string
		want      string
		err       string
	}{
		{[]server.Listener{sasl, plain}, "", "INTERNAL", ""},
		{[]server.Listener{tls, sasl}, "", "CLIENTS", ""},
		{[]server.Listener{plain, sasl}, "clients", "CLIENTS", ""},
		{[]server.Listener{tls}, "", "SECURE", ""},
		{[]server.Listener{tls, saslTLS}, "", "EXTERNAL", ""},
		{[]server.Listener{plain, tls}, "SECURE", "SECURE", ""},
		{[]server.Listener{plain, saslTLS}, "external", "EXTERNAL", ""},
		{[]server.Listener{plain}, "OTHER", "", "karst.console.kafka.listener OTHER names no listener"},
		{nil, "", "", "no listener"},
	} {
		l, err := consoleListener(c.listeners, c.name)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %q: %v, want an error saying %q", c.listeners, c.name, err, c.err)
			}
			continue
		}
		if err != nil || l.Name != c.want {
			t.Errorf("%v %q: %s %v, want %s", c.listeners, c.name, l.Name, err, c.want)
		}
	}
}

// TestConsoleTLS: on an SSL listener the console presents the listener's
// own certificate where the listener asks for one and would accept it, and
// is then that certificate's principal as ssl.principal.mapping.rules
// name it; without client authentication, or with a certificate the
// listener would refuse under "requested", it is User:ANONYMOUS; under
// "required" with such a certificate the console does not start. It
// trusts only the certificate the listener serves.
func TestConsoleTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "console-test-ca")
	broker, serverOnly := ca.Broker(t, "broker"), ca.Server(t, "server-only")
	listener := func(pair *tlstest.Pair, clientAuth, rules string, saslToo bool) server.Listener {
		t.Helper()
		tl, err := tlsconfig.NewListener(tlsconfig.Settings{KeystoreType: "PEM", KeystoreKey: pair.KeyPEM(t, ""), KeystoreCertificateChain: pair.ChainPEM(),
			TruststoreType: "PEM", TruststoreCertificates: ca.PEM(), ClientAuth: clientAuth})
		if err != nil {
			t.Fatal(err)
		}
		mapper, err := principal.ParseSSLMappingRules(rules)
		if err != nil {
			t.Fatal(err)
		}
		l := server.Listener{Name: "SECURE", SecurityProtocol: "SSL", TLS: tl, PrincipalMapper: mapper}
		if saslToo {
			l.SecurityProtocol, l.SASL = "SASL_SSL", &sasl.Listener{Name: "SECURE"}
		}
		return l
	}
	// handshake runs the console's side against the listener's and
	// returns the subject the listener saw (empty: no certificate).
	handshake := func(cfg *tls.Config, l server.Listener) (string, error) {
		c, s := net.Pipe()
		defer c.Close()
		defer s.Close()
		srv := tls.Server(s, l.TLS.Config())
		seen := make(chan string, 1)
		go func() {
			if srv.Handshake() != nil {
				seen <- "failed"
				s.Close()
				return
			}
			if certs := srv.ConnectionState().PeerCertificates; len(certs) > 0 {
				seen <- certs[0].Subject.CommonName
				return
			}
			seen <- ""
		}()
		err := tls.Client(c, cfg).Handshake()
		if err != nil {
			c.Close()
		}
		return <-seen, err
	}
	for _, tc := range []struct {
		what       string
		l          server.Listener
		principal  string
		presents   string
		startError string
	}{
		{"no client authentication", listener(broker, "none", "DEFAULT", false), "User:ANONYMOUS", "", ""},
		{"required, a certificate for both ends", listener(broker, "required", "DEFAULT", false), "User:CN=broker", "broker", ""},
		{"required, mapped by a rule", listener(broker, "required", "RULE:^CN=(.*)$/$1/L,DEFAULT", false), "User:broker", "broker", ""},
		{"requested, a certificate for serving only", listener(serverOnly, "requested", "DEFAULT", false), "User:ANONYMOUS", "", ""},
		{"required, a certificate for serving only", listener(serverOnly, "required", "DEFAULT", false), "", "", "would refuse its own key store's"},
		{"SASL_SSL, required", listener(broker, "required", "DEFAULT", true), "User:ANONYMOUS", "broker", ""},
	} {
		cfg, who, err := consoleTLS(tc.l)
		if tc.startError != "" {
			if err == nil || !strings.Contains(err.Error(), tc.startError) {
				t.Errorf("%s: %v, want an error saying %q", tc.what, err, tc.startError)
			}
			continue
		}
		if err != nil || who != tc.principal {
			t.Errorf("%s: principal %q %v, want %q", tc.what, who, err, tc.principal)
			continue
		}
		if seen, err := handshake(cfg, tc.l); err != nil || seen != tc.presents {
			t.Errorf("%s: the listener saw %q (%v), want %q", tc.what, seen, err, tc.presents)
		}
	}
	// A listener serving another certificate, even one the same CA signed,
	// is not the one the console was made for.
	cfg, _, err := consoleTLS(listener(broker, "none", "DEFAULT", false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handshake(cfg, listener(ca.Broker(t, "impostor"), "none", "DEFAULT", false)); err == nil ||
		!strings.Contains(err.Error(), "a certificate other than its key store's") {
		t.Errorf("another certificate: %v, want it refused", err)
	}
}
