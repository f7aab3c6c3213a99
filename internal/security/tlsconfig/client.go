package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// BuildClient makes the client-side tls.Config that a Kafka client's
// ssl.* properties describe: the trust store the broker's certificate is
// checked against (the system's roots without one, as Java falls back to
// its cacerts), a key store only when one is given (for ssl.client.auth),
// and the enabled protocols. verifyHostname is Kafka's
// ssl.endpoint.identification.algorithm=https, its default; without it
// the chain is still verified, but not the name in the certificate.
func BuildClient(s Settings, verifyHostname bool) (*tls.Config, error) {
	roots, err := loadTruststore(s)
	if err != nil {
		return nil, err
	}
	lowest, highest, err := versionRange(s)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{RootCAs: roots, MinVersion: lowest, MaxVersion: highest}
	if s.KeystoreLocation != "" || s.KeystoreKey != "" || s.KeystoreCertificateChain != "" {
		cert, err := loadKeystore(s)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if !verifyHostname {
		cfg.InsecureSkipVerify = true // the chain is verified below
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the broker sent no certificate")
			}
			intermediates := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				intermediates.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates})
			if err != nil {
				return fmt.Errorf("broker certificate: %w", err)
			}
			return nil
		}
	}
	return cfg, nil
}
