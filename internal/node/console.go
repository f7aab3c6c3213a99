package node

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/console"
	"github.com/karst-broker/karst/internal/sasl"
	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/server"
)

// startConsole serves karst.console.listener, when set: the web console,
// a Kafka client of one of this broker's listeners
// (karst.console.kafka.listener).
func (n *Node) startConsole(settings *config.Broker, listeners []server.Listener) error {
	if settings == nil || settings.String("karst.console.listener") == "" {
		return nil
	}
	addr := settings.String("karst.console.listener")
	l, err := consoleListener(listeners, settings.String("karst.console.kafka.listener"))
	if err != nil {
		return fmt.Errorf("karst.console.listener %s: %w", addr, err)
	}
	opts := console.Options{Addr: addr, Bootstrap: n.loopbackAddr(l.Name), Metrics: n.metrics, Logger: n.levels.Logger(loggerConsole),
		SampleEvery:    time.Duration(settings.Int("karst.console.sample.interval.ms")) * time.Millisecond,
		SessionTimeout: time.Duration(settings.Long("karst.console.session.timeout.ms")) * time.Millisecond,
		Principal:      principal.Anonymous.String()}
	if err := consoleServerTLS(settings, &opts); err != nil {
		return fmt.Errorf("karst.console.listener %s: %w", addr, err)
	}
	if l.TLS != nil {
		if opts.TLS, opts.Principal, err = consoleTLS(l); err != nil {
			return fmt.Errorf("karst.console.listener %s: %w", addr, err)
		}
	}
	if l.SASL != nil {
		if opts.Mechanisms = console.LoginMechanisms(l.SASL.Mechanisms); len(opts.Mechanisms) == 0 {
			return fmt.Errorf("karst.console.listener %s: listener %s enables %s; a console login needs PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER",
				addr, l.Name, strings.Join(l.SASL.Mechanisms, ", "))
		}
		if slices.Contains(opts.Mechanisms, sasl.OAuthBearer) {
			opts.OAuthBearer = tokenPrincipal(l.SASL)
		}
		opts.Principal = ""
	}
	c, err := console.Start(opts)
	if err != nil {
		return fmt.Errorf("karst.console.listener %s: %w", addr, err)
	}
	n.console = c
	login := "none"
	if len(opts.Mechanisms) > 0 {
		login = strings.Join(opts.Mechanisms, ",")
	}
	n.logger.Info("serving the web console", "url", c.URL(), "reads", opts.Bootstrap, "listener", l.Name,
		"login", login, "principal", opts.Principal)
	return nil
}

// consolePreference is the order the console takes listeners in when
// none is named: the least a console visitor gets first. PLAINTEXT is
// User:ANONYMOUS; on SASL listeners everyone logs in; on SSL the console
// is the principal of the listener's own certificate when the listener
// asks for one, which is often a super user.
var consolePreference = []string{"PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL", "SSL"}

// consoleListener is the listener named name, or without a name the first
// of the listeners in consolePreference's order.
func consoleListener(listeners []server.Listener, name string) (server.Listener, error) {
	protocol := func(l server.Listener) string { return cmp.Or(l.SecurityProtocol, "PLAINTEXT") }
	if name != "" {
		for _, l := range listeners {
			if strings.EqualFold(l.Name, name) {
				return l, nil
			}
		}
		return server.Listener{}, fmt.Errorf("karst.console.kafka.listener %s names no listener", name)
	}
	for _, want := range consolePreference {
		for _, l := range listeners {
			if protocol(l) == want {
				return l, nil
			}
		}
	}
	return server.Listener{}, fmt.Errorf("the console has no listener to read the broker through")
}

// consoleTLS is the client side of the console's handshakes with an SSL
// or SASL_SSL listener of this broker, and the principal the listener
// gives the console on SSL.
//
// The console checks that the broker is the broker by the certificate:
// the one the listener serves from its key store at the time, which only
// this process can present. Checking the chain against the trust store
// instead would fail where that trust store holds only the clients' CA,
// and the host name could not be checked anyway: the console dials the
// bound address, not the advertised name its certificate carries.
//
// When the listener asks for a client certificate (ssl.client.auth), the
// console presents the key store's, as a Kafka broker does to another,
// if the listener would accept it: its chain verifies against the trust
// store for client authentication. Otherwise it presents none, which
// ssl.client.auth=requested accepts as User:ANONYMOUS and required
// refuses, so that case fails here, saying why.
func consoleTLS(l server.Listener) (*tls.Config, string, error) {
	served := l.TLS.Current()
	if served == nil || len(served.Certificates) == 0 || len(served.Certificates[0].Certificate) == 0 {
		return nil, "", fmt.Errorf("listener %s has no certificate", l.Name)
	}
	cfg := &tls.Config{
		MinVersion: served.MinVersion,
		MaxVersion: served.MaxVersion,
		// Verified by VerifyConnection, against the served certificate.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			current := l.TLS.Current()
			if len(cs.PeerCertificates) == 0 || len(current.Certificates) == 0 ||
				!bytes.Equal(cs.PeerCertificates[0].Raw, current.Certificates[0].Certificate[0]) {
				return fmt.Errorf("listener %s answered with a certificate other than its key store's", l.Name)
			}
			return nil
		},
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			current := l.TLS.Current()
			if len(current.Certificates) > 0 && clientCertificateAccepted(current) == nil {
				return &current.Certificates[0], nil
			}
			return &tls.Certificate{}, nil
		},
	}
	who := principal.Anonymous.String()
	if served.ClientAuth == tls.NoClientCert {
		return cfg, who, nil
	}
	if err := clientCertificateAccepted(served); err != nil {
		if served.ClientAuth == tls.RequireAndVerifyClientCert {
			return nil, "", fmt.Errorf("listener %s requires a client certificate (ssl.client.auth=required) and would refuse its own key store's: %w", l.Name, err)
		}
		return cfg, who, nil
	}
	if l.SASL != nil {
		// On SASL_SSL the principal is the SASL login's.
		return cfg, who, nil
	}
	leaf, _ := x509.ParseCertificate(served.Certificates[0].Certificate[0])
	dn, err := principal.DistinguishedName(leaf.RawSubject)
	if err == nil && l.PrincipalMapper != nil {
		dn, err = l.PrincipalMapper.Name(dn)
	}
	if err != nil {
		return nil, "", fmt.Errorf("listener %s: no principal for its own certificate: %w", l.Name, err)
	}
	return cfg, principal.User(dn).String(), nil
}

// clientCertificateAccepted says why the listener served by cfg would
// refuse its own certificate as a client's, or nil.
func clientCertificateAccepted(cfg *tls.Config) error {
	chain := cfg.Certificates[0].Certificate
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return err
	}
	intermediates := x509.NewCertPool()
	for _, der := range chain[1:] {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return err
		}
		intermediates.AddCert(c)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cfg.ClientCAs, Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return err
}

// tokenPrincipal names a token's principal and expiry with the listener's
// own OAUTHBEARER validation, so the console shows the principal the
// broker's ACLs know.
func tokenPrincipal(l *sasl.Listener) func(string) (string, time.Time, error) {
	return func(token string) (string, time.Time, error) {
		x, err := l.Start(sasl.OAuthBearer)
		if err != nil {
			return "", time.Time{}, err
		}
		challenge, err := x.Step([]byte("n,,\x01auth=Bearer " + token + "\x01\x01"))
		if err != nil {
			return "", time.Time{}, err
		}
		if !x.Done() {
			return "", time.Time{}, errors.New("the listener refused the token: " + string(challenge))
		}
		var expires time.Time
		if e, ok := x.(sasl.Expiring); ok {
			expires = e.CredentialExpires()
		}
		return x.User(), expires, nil
	}
}

// loopbackAddr is the bound address of the listener, on loopback when it
// is bound to every interface.
func (n *Node) loopbackAddr(listener string) string {
	tcp, ok := n.srv.Addr(listener).(*net.TCPAddr)
	if !ok {
		return ""
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
		if tcp.IP.To4() == nil && len(tcp.IP) == net.IPv6len && !tcp.IP.Equal(net.IPv6unspecified) {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, fmt.Sprint(tcp.Port))
}

// ConsoleURL is the web console's address as a browser opens it, without
// its closing slash, or "" when the console is off.
func (n *Node) ConsoleURL() string {
	if n.console == nil {
		return ""
	}
	return strings.TrimSuffix(n.console.URL(), "/")
}

// ConsoleAddr is the bound address of karst.console.listener, or nil.
func (n *Node) ConsoleAddr() net.Addr {
	if n.console == nil {
		return nil
	}
	return n.console.Addr()
}
