// Package tlstest makes throw-away certificate authorities, certificates
// and key/trust stores (PEM, PKCS12, JKS) for tests, so no private key is
// ever checked in.
package tlstest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"github.com/youmark/pkcs8"
	"software.sslmate.com/src/go-pkcs12"
)

// CA is a certificate authority that signs test certificates.
type CA struct {
	Cert *x509.Certificate
	key  crypto.Signer
}

// Pair is a certificate chain (leaf first, then the CA) and its key.
type Pair struct {
	Chain []*x509.Certificate
	Key   crypto.Signer
}

// NewCA makes a CA named cn.
func NewCA(t testing.TB, cn string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"Karst tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{Cert: cert, key: key}
}

// Server issues a certificate for 127.0.0.1 and localhost.
func (ca *CA) Server(t testing.TB, cn string) *Pair {
	return ca.issue(t, pkix.Name{CommonName: cn}, x509.ExtKeyUsageServerAuth, func(c *x509.Certificate) {
		c.DNSNames = []string{"localhost"}
		c.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	})
}

// Broker issues a certificate for 127.0.0.1 and localhost that serves
// and also authenticates as a client, as a broker's must where it is a
// client of a listener with ssl.client.auth.
func (ca *CA) Broker(t testing.TB, cn string) *Pair {
	return ca.issue(t, pkix.Name{CommonName: cn}, x509.ExtKeyUsageServerAuth, func(c *x509.Certificate) {
		c.DNSNames = []string{"localhost"}
		c.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		c.ExtKeyUsage = append(c.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	})
}

// Client issues a client certificate with the given subject.
func (ca *CA) Client(t testing.TB, subject pkix.Name) *Pair {
	return ca.issue(t, subject, x509.ExtKeyUsageClientAuth, nil)
}

func (ca *CA) issue(t testing.TB, subject pkix.Name, usage x509.ExtKeyUsage, edit func(*x509.Certificate)) *Pair {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	if edit != nil {
		edit(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &Pair{Chain: []*x509.Certificate{cert, ca.Cert}, Key: key}
}

// Pool is a pool holding the CA, for a client's RootCAs.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// TLSCertificate is the pair for a tls.Config.
func (p *Pair) TLSCertificate() tls.Certificate {
	c := tls.Certificate{PrivateKey: p.Key, Leaf: p.Chain[0]}
	for _, cert := range p.Chain {
		c.Certificate = append(c.Certificate, cert.Raw)
	}
	return c
}

// ChainPEM is the certificates in PEM.
func (p *Pair) ChainPEM() string {
	var b bytes.Buffer
	for _, c := range p.Chain {
		pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.String()
}

// KeyPEM is the key as a PKCS#8 PEM block, encrypted (PBES2) when password
// is not empty.
func (p *Pair) KeyPEM(t testing.TB, password string) string {
	t.Helper()
	if password == "" {
		der, err := x509.MarshalPKCS8PrivateKey(p.Key)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	der, err := pkcs8.MarshalPrivateKey(p.Key, []byte(password), nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der}))
}

// PKCS12 is the pair as a PKCS12 key store.
func (p *Pair) PKCS12(t testing.TB, password string) []byte {
	t.Helper()
	data, err := pkcs12.Modern.Encode(p.Key, p.Chain[0], p.Chain[1:], password)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// JKS is the pair as a JKS key store, the key entry protected by
// keyPassword.
func (p *Pair) JKS(t testing.TB, storePassword, keyPassword string) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(p.Key)
	if err != nil {
		t.Fatal(err)
	}
	entry := keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: der}
	for _, c := range p.Chain {
		entry.CertificateChain = append(entry.CertificateChain, keystore.Certificate{Type: "X509", Content: c.Raw})
	}
	ks := keystore.New()
	if err := ks.SetPrivateKeyEntry("karst", entry, []byte(keyPassword)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(storePassword)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// PEM is the CA certificate in PEM.
func (ca *CA) PEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw}))
}

// PKCS12TrustStore is the CA as a PKCS12 trust store.
func (ca *CA) PKCS12TrustStore(t testing.TB, password string) []byte {
	t.Helper()
	data, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{ca.Cert}, password)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// JKSTrustStore is the CA as a JKS trust store.
func (ca *CA) JKSTrustStore(t testing.TB, password string) []byte {
	t.Helper()
	ks := keystore.New()
	if err := ks.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{
		CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: ca.Cert.Raw},
	}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(password)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// WriteFile writes data to name in the test's temporary directory and
// returns the path.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newKey(t testing.TB) crypto.Signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
