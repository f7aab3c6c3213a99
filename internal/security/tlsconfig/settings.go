// Package tlsconfig builds the TLS side of an SSL or SASL_SSL listener
// from Kafka's ssl.* keys: key stores and trust stores as PEM (files or
// inline), PKCS12 or JKS, the enabled protocols and cipher suites, and
// ssl.client.auth. A listener's configuration can be replaced while it
// serves, as Kafka's dynamic SSL update replaces its SSLContext: new
// handshakes use the new key and trust stores, open connections keep
// theirs.
package tlsconfig

import (
	"strings"
)

// Settings are one listener's ssl.* values, already resolved through the
// listener.name.<listener>.ssl.* forms.
type Settings struct {
	KeystoreType             string // ssl.keystore.type: JKS, PKCS12 or PEM
	KeystoreLocation         string
	KeystorePassword         string
	KeyPassword              string // ssl.key.password
	KeystoreKey              string // ssl.keystore.key (inline PEM)
	KeystoreCertificateChain string // ssl.keystore.certificate.chain (inline PEM)

	TruststoreType         string
	TruststoreLocation     string
	TruststorePassword     string
	TruststoreCertificates string // ssl.truststore.certificates (inline PEM)

	Protocol         string   // ssl.protocol
	EnabledProtocols []string // ssl.enabled.protocols
	CipherSuites     []string // ssl.cipher.suites; empty means the defaults
	ClientAuth       string   // ssl.client.auth: none, requested or required
}

// Keys are the ssl.* keys Settings reads, for callers that resolve them.
var Keys = []string{
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
	"ssl.keystore.key", "ssl.keystore.certificate.chain",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
	"ssl.protocol", "ssl.enabled.protocols", "ssl.cipher.suites", "ssl.client.auth",
}

// SettingsFrom reads Settings through get, which returns a key's raw
// value ("" when null).
func SettingsFrom(get func(key string) string) Settings {
	return Settings{
		KeystoreType:             strings.ToUpper(strings.TrimSpace(get("ssl.keystore.type"))),
		KeystoreLocation:         strings.TrimSpace(get("ssl.keystore.location")),
		KeystorePassword:         get("ssl.keystore.password"),
		KeyPassword:              get("ssl.key.password"),
		KeystoreKey:              get("ssl.keystore.key"),
		KeystoreCertificateChain: get("ssl.keystore.certificate.chain"),
		TruststoreType:           strings.ToUpper(strings.TrimSpace(get("ssl.truststore.type"))),
		TruststoreLocation:       strings.TrimSpace(get("ssl.truststore.location")),
		TruststorePassword:       get("ssl.truststore.password"),
		TruststoreCertificates:   get("ssl.truststore.certificates"),
		Protocol:                 strings.TrimSpace(get("ssl.protocol")),
		EnabledProtocols:         list(get("ssl.enabled.protocols")),
		CipherSuites:             list(get("ssl.cipher.suites")),
		ClientAuth:               strings.ToLower(strings.TrimSpace(get("ssl.client.auth"))),
	}
}

func list(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
