package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
)

// lockedBuffer collects log output written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startSSLServer serves a PLAINTEXT and an SSL listener (client
// certificates requested, mapped by rules) and logs into the returned
// buffer.
func startSSLServer(t *testing.T, ca *tlstest.CA, rules string) (*Server, *lockedBuffer) {
	t.Helper()
	pair := ca.Server(t, "broker")
	l, err := tlsconfig.NewListener(tlsconfig.Settings{KeystoreType: "PEM", KeystoreCertificateChain: pair.ChainPEM(),
		KeystoreKey: pair.KeyPEM(t, ""), TruststoreType: "PEM", TruststoreCertificates: ca.PEM(), ClientAuth: "requested"})
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := principal.ParseSSLMappingRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	s := New(Config{
		Listeners: []Listener{
			{Name: "PLAINTEXT", Addr: "127.0.0.1:0"},
			{Name: "SSL", Addr: "127.0.0.1:0", SecurityProtocol: "SSL", TLS: l, PrincipalMapper: mapper},
		},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	serveForTest(t, s)
	return s, logs
}

func dialSSL(t *testing.T, s *Server, ca *tlstest.CA, client *tlstest.Pair) net.Conn {
	t.Helper()
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"}
	if client != nil {
		cfg.Certificates = []tls.Certificate{client.TLSCertificate()}
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", s.Addr("SSL").String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// unservedAPIKey is an API key no Kafka has; the server logs the request,
// naming the connection.
const unservedAPIKey = 9999

func TestEveryConnectionLogsItsPrincipal(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	s, logs := startSSLServer(t, ca, "RULE:^CN=(.*?),OU=(.*?),O=.*$/$1@$2/L,DEFAULT")
	alice := ca.Client(t, pkix.Name{CommonName: "Alice", OrganizationalUnit: []string{"Eng"}, Organization: []string{"Karst"}})
	bob := ca.Client(t, pkix.Name{CommonName: "bob", Country: []string{"US"}})
	for i, tc := range []struct {
		conn net.Conn
		want string
	}{
		{dialTest(t, s.Addr("PLAINTEXT").String()), "listener=PLAINTEXT principal=User:ANONYMOUS"},
		{dialSSL(t, s, ca, nil), "listener=SSL principal=User:ANONYMOUS"},
		{dialSSL(t, s, ca, alice), "listener=SSL principal=User:alice@eng"},
		{dialSSL(t, s, ca, bob), `listener=SSL principal="User:CN=bob,C=US"`},
	} {
		// Each connection names its own client software, so its refused
		// request is a new one for the once-per-software log.
		named := kmsg.NewPtrApiVersionsRequest()
		named.SetVersion(3)
		named.ClientSoftwareName, named.ClientSoftwareVersion = "probe", strconv.Itoa(i)
		roundTrip(t, tc.conn, encodeRequest(named, 6), 6)
		roundTrip(t, tc.conn, frameOf(unservedAPIKey, 0, 7, false, nil), 7)
		if !strings.Contains(logs.String(), tc.want) {
			t.Errorf("no log line with %s in:\n%s", tc.want, logs)
		}
	}
}

func TestUnmappedClientCertificateIsRefused(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	s, logs := startSSLServer(t, ca, "RULE:^CN=(.*?),OU=ServiceUsers$/$1/")
	c := dialSSL(t, s, ca, ca.Client(t, pkix.Name{CommonName: "eve"}))
	if _, err := c.Write(frameOf(unservedAPIKey, 0, 1, false, nil)); err == nil {
		if _, err := readResponse(c); err == nil {
			t.Fatal("an unmapped client was answered")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for s.Stats().AuthenticationsFailed.Load() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no failed authentication counted")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if n := s.Stats().Requests.Load(); n != 0 {
		t.Fatalf("%d requests read from a refused client", n)
	}
	if !strings.Contains(logs.String(), "No rules apply to CN=eve") {
		t.Fatalf("the refusal is not logged with Kafka's reason:\n%s", logs)
	}
}

func TestSASLListenersAreRefusedUntilServed(t *testing.T) {
	for _, proto := range []string{"SASL_PLAINTEXT", "SASL_SSL", "SSL"} {
		s := New(Config{Listeners: []Listener{{Name: "X", Addr: "127.0.0.1:0", SecurityProtocol: proto}}})
		if err := s.Listen(); err == nil || !strings.Contains(err.Error(), proto) {
			s.Shutdown(context.Background())
			t.Errorf("%s without what it needs: %v", proto, err)
		}
	}
}
