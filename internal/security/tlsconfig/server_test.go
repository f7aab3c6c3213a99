package tlsconfig

import (
	"crypto/tls"
	"crypto/x509/pkix"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
)

// handshake runs a TLS handshake over loopback TCP, then one byte each
// way (TLS 1.3 reports a refused client certificate only then), and
// returns what the client and server saw.
func handshake(t *testing.T, server, client *tls.Config) (clientState, serverState tls.ConnectionState, clientErr, serverErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	deadline := time.Now().Add(10 * time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			serverErr = err
			return
		}
		defer nc.Close()
		nc.SetDeadline(deadline)
		srv := tls.Server(nc, server)
		if serverErr = srv.Handshake(); serverErr != nil {
			return
		}
		serverState = srv.ConnectionState()
		var b [1]byte
		if _, serverErr = srv.Read(b[:]); serverErr == nil {
			_, serverErr = srv.Write(b[:])
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(deadline)
	cl := tls.Client(nc, client)
	if clientErr = cl.Handshake(); clientErr == nil {
		if _, clientErr = cl.Write([]byte{1}); clientErr == nil {
			_, clientErr = cl.Read(make([]byte, 1))
		}
	}
	clientState = cl.ConnectionState()
	nc.Close()
	<-done
	return
}

func baseSettings() Settings {
	return Settings{KeystoreType: "JKS", TruststoreType: "JKS", Protocol: "TLSv1.3",
		EnabledProtocols: []string{"TLSv1.2", "TLSv1.3"}, ClientAuth: "none"}
}

func clientFor(ca *tlstest.CA) *tls.Config {
	return &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
}

func TestKeyStoreFormatsServeTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "karst-test-ca")
	pair := ca.Server(t, "broker")
	dir := t.TempDir()
	cases := map[string]func(*Settings){
		"PEM file": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks.pem", []byte(pair.KeyPEM(t, "")+pair.ChainPEM()))
		},
		"PEM file, encrypted key": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks-enc.pem", []byte(pair.ChainPEM()+pair.KeyPEM(t, "key-secret")))
			s.KeyPassword = "key-secret"
		},
		"inline PEM": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
		},
		"inline PEM, encrypted key": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey, s.KeyPassword = pair.ChainPEM(), pair.KeyPEM(t, "k"), "k"
		},
		"PKCS12": func(s *Settings) {
			s.KeystoreType = "PKCS12"
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks.p12", pair.PKCS12(t, "store-secret"))
			s.KeystorePassword = "store-secret"
		},
		"JKS with its own key password": func(s *Settings) {
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks.jks", pair.JKS(t, "store-secret", "key-secret"))
			s.KeystorePassword, s.KeyPassword = "store-secret", "key-secret"
		},
		"JKS, key under the store password": func(s *Settings) {
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks2.jks", pair.JKS(t, "store-secret", "store-secret"))
			s.KeystorePassword = "store-secret"
		},
		"JKS type naming a PKCS12 file (keytool's default format)": func(s *Settings) {
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks-jks.p12", pair.PKCS12(t, "store-secret"))
			s.KeystorePassword = "store-secret"
		},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			s := baseSettings()
			edit(&s)
			cfg, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			_, _, cerr, serr := handshake(t, cfg, clientFor(ca))
			if cerr != nil || serr != nil {
				t.Fatalf("handshake: client %v, server %v", cerr, serr)
			}
		})
	}
}

func TestKeyStoreMistakesAreRefused(t *testing.T) {
	ca := tlstest.NewCA(t, "karst-test-ca")
	pair := ca.Server(t, "broker")
	other := ca.Server(t, "other")
	dir := t.TempDir()
	cases := map[string]func(*Settings){
		"no key store": func(s *Settings) {},
		"wrong JKS password": func(s *Settings) {
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "a.jks", pair.JKS(t, "right", "right"))
			s.KeystorePassword = "wrong"
		},
		"wrong PKCS12 password": func(s *Settings) {
			s.KeystoreType = "PKCS12"
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "a.p12", pair.PKCS12(t, "right"))
			s.KeystorePassword = "wrong"
		},
		"wrong key password": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey, s.KeyPassword = pair.ChainPEM(), pair.KeyPEM(t, "right"), "wrong"
		},
		"encrypted key without password": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "right")
		},
		"key of another certificate": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), other.KeyPEM(t, "")
		},
		"inline PEM with type JKS": func(s *Settings) {
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
		},
		"PEM file with a key store password": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreLocation = tlstest.WriteFile(t, dir, "b.pem", []byte(pair.KeyPEM(t, "")+pair.ChainPEM()))
			s.KeystorePassword = "x"
		},
		"missing file": func(s *Settings) { s.KeystoreLocation = dir + "/none.jks" },
		"TLSv1.1 and TLSv1.3 only": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
			s.EnabledProtocols = []string{"TLSv1.1", "TLSv1.3"}
		},
		"SSLv3": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
			s.EnabledProtocols = []string{"SSLv3"}
		},
		"unknown cipher suite": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
			s.CipherSuites = []string{"TLS_NOT_A_SUITE"}
		},
		"client auth sometimes": func(s *Settings) {
			s.KeystoreType = "PEM"
			s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
			s.ClientAuth = "sometimes"
		},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			s := baseSettings()
			edit(&s)
			if _, err := Build(s); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func pemSettings(t *testing.T, pair *tlstest.Pair) Settings {
	s := baseSettings()
	s.KeystoreType = "PEM"
	s.KeystoreCertificateChain, s.KeystoreKey = pair.ChainPEM(), pair.KeyPEM(t, "")
	return s
}

func TestEnabledProtocolsAndCipherSuites(t *testing.T) {
	ca := tlstest.NewCA(t, "karst-test-ca")
	pair := ca.Server(t, "broker")

	s := pemSettings(t, pair)
	s.EnabledProtocols = []string{"TLSv1.2"}
	s.CipherSuites = []string{"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}
	cfg, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	state, _, cerr, serr := handshake(t, cfg, clientFor(ca))
	if cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
	if state.Version != tls.VersionTLS12 || state.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 {
		t.Fatalf("negotiated %s with %s", tls.VersionName(state.Version), tls.CipherSuiteName(state.CipherSuite))
	}

	// A client that offers only other suites is refused.
	client := clientFor(ca)
	client.MaxVersion = tls.VersionTLS12
	client.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	if _, _, cerr, _ := handshake(t, cfg, client); cerr == nil {
		t.Fatal("a client without the configured suite completed the handshake")
	}

	// TLSv1.3 only refuses a TLS 1.2 client.
	s = pemSettings(t, pair)
	s.EnabledProtocols = []string{"TLSv1.3"}
	if cfg, err = Build(s); err != nil {
		t.Fatal(err)
	}
	if _, _, cerr, _ := handshake(t, cfg, client); cerr == nil {
		t.Fatal("a TLS 1.2 client completed the handshake with TLSv1.3 only")
	}

	// ssl.protocol=TLSv1.2 caps the version.
	s = pemSettings(t, pair)
	s.Protocol = "TLSv1.2"
	if cfg, err = Build(s); err != nil {
		t.Fatal(err)
	}
	if state, _, cerr, _ := handshake(t, cfg, clientFor(ca)); cerr != nil || state.Version != tls.VersionTLS12 {
		t.Fatalf("negotiated %s, %v", tls.VersionName(state.Version), cerr)
	}
}

func TestClientAuth(t *testing.T) {
	ca := tlstest.NewCA(t, "karst-test-ca")
	stranger := tlstest.NewCA(t, "another-ca")
	pair := ca.Server(t, "broker")
	client := ca.Client(t, pkix.Name{CommonName: "alice"})
	strangerClient := stranger.Client(t, pkix.Name{CommonName: "mallory"})
	withCert := func(p *tlstest.Pair) *tls.Config {
		c := clientFor(ca)
		cert := p.TLSCertificate()
		// Sent whatever CAs the server names, as a client holding an
		// untrusted certificate would.
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
		return c
	}
	for _, tc := range []struct {
		auth      string
		client    *tls.Config
		ok        bool
		peerCerts bool
	}{
		{"none", withCert(client), true, false},
		{"requested", clientFor(ca), true, false},
		{"requested", withCert(client), true, true},
		{"requested", withCert(strangerClient), false, false},
		{"required", clientFor(ca), false, false},
		{"required", withCert(client), true, true},
		{"required", withCert(strangerClient), false, false},
	} {
		s := pemSettings(t, pair)
		s.ClientAuth = tc.auth
		s.TruststoreType, s.TruststoreCertificates = "PEM", ca.PEM()
		cfg, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		_, server, cerr, serr := handshake(t, cfg, tc.client)
		if ok := cerr == nil && serr == nil; ok != tc.ok {
			t.Errorf("%s, client certificate %v: client %v, server %v; want ok=%v", tc.auth, tc.client.GetClientCertificate != nil, cerr, serr, tc.ok)
			continue
		}
		if tc.ok && (len(server.PeerCertificates) > 0) != tc.peerCerts {
			t.Errorf("%s: server saw %d peer certificates, want some: %v", tc.auth, len(server.PeerCertificates), tc.peerCerts)
		}
	}
}

func TestTrustStoreFormats(t *testing.T) {
	ca := tlstest.NewCA(t, "karst-test-ca")
	pair := ca.Server(t, "broker")
	client := ca.Client(t, pkix.Name{CommonName: "alice"})
	dir := t.TempDir()
	for name, edit := range map[string]func(*Settings){
		"PEM file": func(s *Settings) {
			s.TruststoreType, s.TruststoreLocation = "PEM", tlstest.WriteFile(t, dir, "ts.pem", []byte(ca.PEM()))
		},
		"inline PEM": func(s *Settings) { s.TruststoreType, s.TruststoreCertificates = "PEM", ca.PEM() },
		"PKCS12": func(s *Settings) {
			s.TruststoreType, s.TruststorePassword = "PKCS12", "trust"
			s.TruststoreLocation = tlstest.WriteFile(t, dir, "ts.p12", ca.PKCS12TrustStore(t, "trust"))
		},
		"JKS": func(s *Settings) {
			s.TruststoreType, s.TruststorePassword = "JKS", "trust"
			s.TruststoreLocation = tlstest.WriteFile(t, dir, "ts.jks", ca.JKSTrustStore(t, "trust"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := pemSettings(t, pair)
			s.ClientAuth = "required"
			edit(&s)
			cfg, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			c := clientFor(ca)
			c.Certificates = []tls.Certificate{client.TLSCertificate()}
			if _, _, cerr, serr := handshake(t, cfg, c); cerr != nil || serr != nil {
				t.Fatalf("handshake: client %v, server %v", cerr, serr)
			}
		})
	}
}

func TestReloadTakesNewStoresForNewHandshakes(t *testing.T) {
	oldCA, newCA := tlstest.NewCA(t, "old-ca"), tlstest.NewCA(t, "new-ca")
	dir := t.TempDir()
	s := baseSettings()
	s.KeystoreType, s.KeystorePassword = "PKCS12", "secret"
	s.KeystoreLocation = tlstest.WriteFile(t, dir, "ks.p12", oldCA.Server(t, "broker").PKCS12(t, "secret"))
	l, err := NewListener(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, cerr, _ := handshake(t, l.Config(), clientFor(oldCA)); cerr != nil {
		t.Fatal(cerr)
	}
	if changed, err := l.Reload(s); changed || err != nil {
		t.Fatalf("reload of unchanged settings: changed=%v, %v", changed, err)
	}

	// The same path, rewritten: Kafka reloads a key store file that changed.
	data := newCA.Server(t, "broker").PKCS12(t, "secret")
	if err := os.WriteFile(s.KeystoreLocation, data, 0o600); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Minute)
	os.Chtimes(s.KeystoreLocation, future, future)
	if changed, err := l.Reload(s); !changed || err != nil {
		t.Fatalf("reload of a rewritten key store: changed=%v, %v", changed, err)
	}
	if _, _, cerr, _ := handshake(t, l.Config(), clientFor(newCA)); cerr != nil {
		t.Fatalf("handshake after reload: %v", cerr)
	}
	if _, _, cerr, _ := handshake(t, l.Config(), clientFor(oldCA)); cerr == nil {
		t.Fatal("a client trusting only the old CA still connects")
	}

	// A broken update leaves the configuration in force.
	bad := s
	bad.KeystorePassword = "wrong"
	if _, err := l.Reload(bad); err == nil {
		t.Fatal("a wrong password was accepted")
	}
	if _, _, cerr, _ := handshake(t, l.Config(), clientFor(newCA)); cerr != nil {
		t.Fatalf("handshake after a failed reload: %v", cerr)
	}
}

// Kafka's docs write inline PEM in server.properties with line
// continuations, which join the base64 lines without newlines.
func TestInlinePEMWithoutNewlines(t *testing.T) {
	ca := tlstest.NewCA(t, "karst-test-ca")
	pair := ca.Server(t, "broker")
	joined := func(pem string) string { return strings.ReplaceAll(pem, "\n", " ") }
	s := baseSettings()
	s.KeystoreType, s.KeystoreCertificateChain, s.KeystoreKey = "PEM", joined(pair.ChainPEM()), joined(pair.KeyPEM(t, "pw"))
	s.KeyPassword = "pw"
	s.TruststoreType, s.TruststoreCertificates = "PEM", strings.ReplaceAll(ca.PEM(), "\n", "")
	cfg, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, cerr, serr := handshake(t, cfg, clientFor(ca)); cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
}

func FuzzDecodePEM(f *testing.F) {
	f.Add([]byte("-----BEGIN CERTIFICATE----- AAAA -----END CERTIFICATE-----"))
	f.Fuzz(func(t *testing.T, data []byte) { decodePEM(data) })
}
