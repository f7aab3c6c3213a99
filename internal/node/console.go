package node

import (
	"cmp"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/console"
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
		SessionTimeout: time.Duration(settings.Long("karst.console.session.timeout.ms")) * time.Millisecond}
	if l.SecurityProtocol == "SASL_PLAINTEXT" {
		if opts.Mechanisms = console.LoginMechanisms(l.SASL.Mechanisms); len(opts.Mechanisms) == 0 {
			return fmt.Errorf("karst.console.listener %s: listener %s enables %s; a console login needs PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
				addr, l.Name, strings.Join(l.SASL.Mechanisms, ", "))
		}
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
	n.logger.Info("serving the web console", "url", "http://"+c.Addr().String()+"/", "reads", opts.Bootstrap, "listener", l.Name, "login", login)
	return nil
}

// consoleListener is the listener named name, or without a name the first
// PLAINTEXT listener, else the first SASL_PLAINTEXT one. The console does
// not dial TLS listeners.
func consoleListener(listeners []server.Listener, name string) (server.Listener, error) {
	protocol := func(l server.Listener) string { return cmp.Or(l.SecurityProtocol, "PLAINTEXT") }
	if name != "" {
		for _, l := range listeners {
			if !strings.EqualFold(l.Name, name) {
				continue
			}
			if p := protocol(l); p != "PLAINTEXT" && p != "SASL_PLAINTEXT" {
				return server.Listener{}, fmt.Errorf("karst.console.kafka.listener %s is %s; the console reads through a PLAINTEXT or SASL_PLAINTEXT listener", l.Name, p)
			}
			return l, nil
		}
		return server.Listener{}, fmt.Errorf("karst.console.kafka.listener %s names no listener", name)
	}
	for _, want := range []string{"PLAINTEXT", "SASL_PLAINTEXT"} {
		for _, l := range listeners {
			if protocol(l) == want {
				return l, nil
			}
		}
	}
	return server.Listener{}, fmt.Errorf("the console needs a PLAINTEXT or SASL_PLAINTEXT listener to read the broker through (SSL listeners are not read yet)")
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

// ConsoleAddr is the bound address of karst.console.listener, or nil.
func (n *Node) ConsoleAddr() net.Addr {
	if n.console == nil {
		return nil
	}
	return n.console.Addr()
}
