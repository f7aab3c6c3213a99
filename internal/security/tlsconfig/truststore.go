package tlsconfig

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// loadTruststore returns the CAs client certificates are checked against;
// nil when no trust store is configured, which leaves the system's roots
// (as Java falls back to its cacerts).
func loadTruststore(s Settings) (*x509.CertPool, error) {
	if s.TruststoreCertificates != "" {
		if s.TruststoreType != "PEM" {
			return nil, fmt.Errorf("ssl.truststore.certificates needs ssl.truststore.type=PEM, not %s", s.TruststoreType)
		}
		if s.TruststoreLocation != "" {
			return nil, errors.New("ssl.truststore.location cannot be set with ssl.truststore.certificates")
		}
		return pemPool([]byte(s.TruststoreCertificates))
	}
	if s.TruststoreLocation == "" {
		return nil, nil
	}
	data, err := os.ReadFile(s.TruststoreLocation)
	if err != nil {
		return nil, fmt.Errorf("ssl.truststore.location: %w", err)
	}
	switch s.TruststoreType {
	case "PEM":
		if s.TruststorePassword != "" {
			return nil, errors.New("SSL trust store password cannot be specified for PEM format")
		}
		return pemPool(data)
	case "PKCS12":
		return pkcs12Pool(data, s.TruststorePassword)
	case "JKS":
		if !bytes.HasPrefix(data, jksMagic) {
			return pkcs12Pool(data, s.TruststorePassword)
		}
		return jksPool(data, s.TruststorePassword)
	}
	return nil, fmt.Errorf("ssl.truststore.type %s: must be JKS, PKCS12 or PEM", s.TruststoreType)
}

func pemPool(data []byte) (*x509.CertPool, error) {
	blocks, err := decodePEM(data)
	if err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	pool := x509.NewCertPool()
	n := 0
	for _, block := range blocks {
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("trust store certificate: %w", err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, errors.New("trust store: no PEM certificate found")
	}
	return pool, nil
}

func pkcs12Pool(data []byte, password string) (*x509.CertPool, error) {
	certs, err := pkcs12.DecodeTrustStore(data, password)
	if err != nil {
		return nil, fmt.Errorf("PKCS12 trust store: %w", err)
	}
	if len(certs) == 0 {
		return nil, errors.New("PKCS12 trust store: no trusted certificate")
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

func jksPool(data []byte, password string) (*x509.CertPool, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return nil, fmt.Errorf("JKS trust store: %w", err)
	}
	pool := x509.NewCertPool()
	n := 0
	for _, alias := range ks.Aliases() {
		entry, err := ks.GetTrustedCertificateEntry(alias)
		if err != nil {
			continue // a private key entry
		}
		cert, err := x509.ParseCertificate(entry.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("JKS trust store entry %s: %w", alias, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, errors.New("JKS trust store: no trusted certificate entry")
	}
	return pool, nil
}
