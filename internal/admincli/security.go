package admincli

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	karstsasl "github.com/karst-broker/karst/internal/sasl"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
)

// securityOptions are the TLS and SASL options of security.protocol and
// the ssl.* and sasl.* properties, read as a Kafka client reads them.
func securityOptions(props map[string]string) ([]kgo.Opt, error) {
	tlsCfg, mechanism, err := security(props)
	if err != nil {
		return nil, err
	}
	var opts []kgo.Opt
	if tlsCfg != nil {
		opts = append(opts, kgo.DialTLSConfig(tlsCfg))
	}
	if mechanism != nil {
		opts = append(opts, kgo.SASL(mechanism))
	}
	return opts, nil
}

// ClientSecurity reads a Kafka client properties file as --command-config
// does (security.protocol, ssl.*, sasl.mechanism, sasl.jaas.config and
// librdkafka's names for them), for other tools that dial brokers (karst
// bench): the TLS configuration (nil for PLAINTEXT and SASL_PLAINTEXT)
// and the SASL mechanism (nil for PLAINTEXT and SSL). Keys the file holds
// that tool does not use are reported to warn; bootstrap.servers,
// client.id and request.timeout.ms are read but left to the caller.
func ClientSecurity(path, tool string, warn io.Writer) (*tls.Config, sasl.Mechanism, error) {
	props, err := readClientProperties(path, tool, warn)
	if err != nil {
		return nil, nil, err
	}
	tlsCfg, mechanism, err := security(props)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return tlsCfg, mechanism, nil
}

// security is the TLS configuration and SASL mechanism of the properties.
func security(props map[string]string) (*tls.Config, sasl.Mechanism, error) {
	protocol := strings.ToUpper(strings.TrimSpace(props["security.protocol"]))
	var useTLS, useSASL bool
	switch protocol {
	case "", "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return nil, nil, fmt.Errorf("security.protocol=%s: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", props["security.protocol"])
	}
	var tlsCfg *tls.Config
	var mechanism sasl.Mechanism
	var err error
	if useTLS {
		if tlsCfg, err = clientTLS(props); err != nil {
			return nil, nil, err
		}
	}
	if useSASL {
		if mechanism, err = saslMechanism(props); err != nil {
			return nil, nil, err
		}
	}
	return tlsCfg, mechanism, nil
}

// clientTLS is the TLS configuration of the ssl.* properties, with
// Kafka's client defaults: JKS stores (which read PKCS12 too) and host
// name verification. librdkafka's ssl.ca.location names a PEM trust store.
func clientTLS(props map[string]string) (*tls.Config, error) {
	s := tlsconfig.SettingsFrom(func(k string) string { return props[k] })
	if ca := strings.TrimSpace(props["ssl.ca.location"]); ca != "" {
		if s.TruststoreLocation != "" || s.TruststoreCertificates != "" {
			return nil, errors.New("ssl.ca.location cannot be set with ssl.truststore.location or ssl.truststore.certificates")
		}
		s.TruststoreLocation, s.TruststoreType = ca, "PEM"
	}
	if s.TruststoreType == "" {
		s.TruststoreType = "JKS"
		if pemFile(s.TruststoreLocation) {
			return nil, fmt.Errorf("ssl.truststore.location %s is a PEM file: set ssl.truststore.type=PEM", s.TruststoreLocation)
		}
	}
	if s.KeystoreType == "" {
		s.KeystoreType = "JKS"
	}
	verify := true
	if alg, set := props["ssl.endpoint.identification.algorithm"]; set {
		switch strings.ToLower(strings.TrimSpace(alg)) {
		case "":
			verify = false
		case "https":
		default:
			return nil, fmt.Errorf("ssl.endpoint.identification.algorithm=%s: want https or empty", alg)
		}
	}
	return tlsconfig.BuildClient(s, verify)
}

// pemFile reports whether the file at path begins as PEM text does.
func pemFile(path string) bool {
	if path == "" {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("-----BEGIN"))
}

// saslMechanism is the client side of sasl.mechanism with the username
// and password of sasl.jaas.config's PlainLoginModule or ScramLoginModule
// (or librdkafka's sasl.username and sasl.password).
func saslMechanism(props map[string]string) (sasl.Mechanism, error) {
	mechanism := strings.ToUpper(strings.TrimSpace(props["sasl.mechanism"]))
	if mechanism == "" {
		return nil, errors.New("sasl.mechanism is not set (Kafka's default, GSSAPI, the admin CLI does not speak): set PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	}
	user, password, err := saslCredentials(props)
	if err != nil {
		return nil, err
	}
	switch mechanism {
	case "PLAIN":
		return plain.Auth{User: user, Pass: password}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: password}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: password}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("sasl.mechanism=%s: the admin CLI speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", props["sasl.mechanism"])
}

// loginModules are the JAAS login modules whose username and password
// options a client authenticates with.
var loginModules = map[string]bool{
	"org.apache.kafka.common.security.plain.PlainLoginModule": true,
	"org.apache.kafka.common.security.scram.ScramLoginModule": true,
}

func saslCredentials(props map[string]string) (user, password string, err error) {
	jaas := strings.TrimSpace(props["sasl.jaas.config"])
	if jaas == "" {
		user, password = props["sasl.username"], props["sasl.password"]
		if user == "" {
			return "", "", errors.New("no SASL credentials: set sasl.jaas.config (or sasl.username and sasl.password)")
		}
		return user, password, nil
	}
	modules, err := karstsasl.ParseJAAS(jaas)
	if err != nil {
		return "", "", fmt.Errorf("sasl.jaas.config: %w", err)
	}
	if len(modules) != 1 {
		return "", "", fmt.Errorf("sasl.jaas.config: %d login modules, want one", len(modules))
	}
	m := modules[0]
	if !loginModules[m.Class] {
		return "", "", fmt.Errorf("sasl.jaas.config: login module %s: want PlainLoginModule or ScramLoginModule", m.Class)
	}
	if m.Options["username"] == "" {
		return "", "", errors.New("sasl.jaas.config: no username option")
	}
	return m.Options["username"], m.Options["password"], nil
}
