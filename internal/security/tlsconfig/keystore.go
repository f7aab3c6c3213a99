package tlsconfig

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"github.com/youmark/pkcs8"
	"software.sslmate.com/src/go-pkcs12"
)

// jksMagic starts every JKS file; keytool writes PKCS12 by default since
// Java 9, and Java's JKS key store type reads those too.
var jksMagic = []byte{0xfe, 0xed, 0xfe, 0xed}

// loadKeystore returns the listener's certificate chain and private key.
func loadKeystore(s Settings) (tls.Certificate, error) {
	inline := s.KeystoreKey != "" || s.KeystoreCertificateChain != ""
	switch {
	case inline && s.KeystoreType != "PEM":
		return tls.Certificate{}, fmt.Errorf("ssl.keystore.key and ssl.keystore.certificate.chain need ssl.keystore.type=PEM, not %s", s.KeystoreType)
	case inline && s.KeystoreLocation != "":
		return tls.Certificate{}, errors.New("ssl.keystore.location cannot be set with ssl.keystore.key and ssl.keystore.certificate.chain")
	case inline && (s.KeystoreKey == "" || s.KeystoreCertificateChain == ""):
		return tls.Certificate{}, errors.New("ssl.keystore.key and ssl.keystore.certificate.chain must both be set")
	case inline:
		return pemKeyPair([]byte(s.KeystoreCertificateChain), []byte(s.KeystoreKey), s.KeyPassword)
	case s.KeystoreLocation == "":
		return tls.Certificate{}, errors.New("an SSL listener needs a key store: set ssl.keystore.location, or ssl.keystore.type=PEM with ssl.keystore.key and ssl.keystore.certificate.chain")
	}
	data, err := os.ReadFile(s.KeystoreLocation)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore.location: %w", err)
	}
	switch s.KeystoreType {
	case "PEM":
		if s.KeystorePassword != "" {
			return tls.Certificate{}, errors.New("SSL key store password cannot be specified with PEM format, only key password may be specified")
		}
		return pemKeyPair(data, data, s.KeyPassword)
	case "PKCS12":
		return pkcs12KeyPair(data, s.KeystorePassword)
	case "JKS":
		if !bytes.HasPrefix(data, jksMagic) {
			return pkcs12KeyPair(data, s.KeystorePassword)
		}
		keyPassword := s.KeyPassword
		if keyPassword == "" {
			keyPassword = s.KeystorePassword
		}
		return jksKeyPair(data, s.KeystorePassword, keyPassword)
	}
	return tls.Certificate{}, fmt.Errorf("ssl.keystore.type %s: must be JKS, PKCS12 or PEM", s.KeystoreType)
}

// pemKeyPair reads the certificates of chainPEM and the one private key of
// keyPEM. As Kafka's PEM key stores, the key must be PKCS#8: "PRIVATE
// KEY", or "ENCRYPTED PRIVATE KEY" opened with ssl.key.password.
func pemKeyPair(chainPEM, keyPEM []byte, keyPassword string) (tls.Certificate, error) {
	var out tls.Certificate
	chain, err := decodePEM(chainPEM)
	if err != nil {
		return out, fmt.Errorf("key store: %w", err)
	}
	for _, block := range chain {
		if block.Type == "CERTIFICATE" {
			out.Certificate = append(out.Certificate, block.Bytes)
		}
	}
	if len(out.Certificate) == 0 {
		return out, errors.New("key store: no PEM certificate found")
	}
	blocks, err := decodePEM(keyPEM)
	if err != nil {
		return out, fmt.Errorf("key store: %w", err)
	}
	var keys []*pem.Block
	for _, block := range blocks {
		switch block.Type {
		case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
			keys = append(keys, block)
		case "RSA PRIVATE KEY", "EC PRIVATE KEY":
			return out, fmt.Errorf("key store: a %s block; Kafka's PEM key stores take PKCS#8 keys (PRIVATE KEY or ENCRYPTED PRIVATE KEY), e.g. from openssl pkcs8 -topk8", block.Type)
		}
	}
	if len(keys) != 1 {
		return out, fmt.Errorf("key store: want exactly one PEM private key, found %d", len(keys))
	}
	key, err := parsePKCS8(keys[0], keyPassword)
	if err != nil {
		return out, err
	}
	return finishPair(out.Certificate, key)
}

func parsePKCS8(block *pem.Block, password string) (crypto.PrivateKey, error) {
	if block.Type == "PRIVATE KEY" {
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("key store: private key: %w", err)
		}
		return key, nil
	}
	if password == "" {
		return nil, errors.New("key store: the private key is encrypted; set ssl.key.password")
	}
	key, _, err := pkcs8.ParsePrivateKey(block.Bytes, []byte(password))
	if err != nil {
		return nil, fmt.Errorf("key store: decrypting the private key with ssl.key.password: %w", err)
	}
	return key, nil
}

func pkcs12KeyPair(data []byte, password string) (tls.Certificate, error) {
	key, leaf, chain, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("PKCS12 key store: %w", err)
	}
	ders := [][]byte{leaf.Raw}
	for _, c := range chain {
		ders = append(ders, c.Raw)
	}
	return finishPair(ders, key)
}

func jksKeyPair(data []byte, storePassword, keyPassword string) (tls.Certificate, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(storePassword)); err != nil {
		return tls.Certificate{}, fmt.Errorf("JKS key store: %w", err)
	}
	var found []string
	for _, alias := range ks.Aliases() {
		if ks.IsPrivateKeyEntry(alias) {
			found = append(found, alias)
		}
	}
	if len(found) != 1 {
		return tls.Certificate{}, fmt.Errorf("JKS key store: want exactly one private key entry, found %d", len(found))
	}
	entry, err := ks.GetPrivateKeyEntry(found[0], []byte(keyPassword))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("JKS key store entry %s: %w", found[0], err)
	}
	key, err := x509.ParsePKCS8PrivateKey(entry.PrivateKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("JKS key store entry %s: %w", found[0], err)
	}
	var ders [][]byte
	for _, c := range entry.CertificateChain {
		ders = append(ders, c.Content)
	}
	return finishPair(ders, key)
}

// finishPair checks that the key belongs to the first certificate.
func finishPair(ders [][]byte, key crypto.PrivateKey) (tls.Certificate, error) {
	if len(ders) == 0 {
		return tls.Certificate{}, errors.New("key store: the private key has no certificate")
	}
	leaf, err := x509.ParseCertificate(ders[0])
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("key store certificate: %w", err)
	}
	pub, ok := key.(interface{ Public() crypto.PublicKey })
	if !ok {
		return tls.Certificate{}, fmt.Errorf("key store: unsupported private key type %T", key)
	}
	if eq, ok := pub.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !eq.Equal(leaf.PublicKey) {
		return tls.Certificate{}, errors.New("key store: the private key does not match the first certificate")
	}
	return tls.Certificate{Certificate: ders, PrivateKey: key, Leaf: leaf}, nil
}
