package node

import (
	"fmt"
	"net"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/console"
	"github.com/karst-broker/karst/internal/server"
)

// startConsole serves karst.console.listener, when set: the web console,
// a Kafka client of this broker's first PLAINTEXT listener.
func (n *Node) startConsole(settings *config.Broker, listeners []server.Listener) error {
	if settings == nil || settings.String("karst.console.listener") == "" {
		return nil
	}
	addr := settings.String("karst.console.listener")
	bootstrap, err := n.consoleBootstrap(listeners)
	if err != nil {
		return fmt.Errorf("karst.console.listener %s: %w", addr, err)
	}
	c, err := console.Start(console.Options{Addr: addr, Bootstrap: bootstrap, Metrics: n.metrics, Logger: n.levels.Logger(loggerConsole),
		SampleEvery: time.Duration(settings.Int("karst.console.sample.interval.ms")) * time.Millisecond})
	if err != nil {
		return fmt.Errorf("karst.console.listener %s: %w", addr, err)
	}
	n.console = c
	n.logger.Info("serving the web console", "url", "http://"+c.Addr().String()+"/", "reads", bootstrap)
	return nil
}

// consoleBootstrap is the address of the first PLAINTEXT listener, on
// loopback when it is bound to every interface.
func (n *Node) consoleBootstrap(listeners []server.Listener) (string, error) {
	for _, l := range listeners {
		if l.SecurityProtocol != "" && l.SecurityProtocol != "PLAINTEXT" {
			continue
		}
		tcp, ok := n.srv.Addr(l.Name).(*net.TCPAddr)
		if !ok {
			continue
		}
		host := tcp.IP.String()
		if tcp.IP.IsUnspecified() {
			host = "127.0.0.1"
			if tcp.IP.To4() == nil && len(tcp.IP) == net.IPv6len && !tcp.IP.Equal(net.IPv6unspecified) {
				host = "::1"
			}
		}
		return net.JoinHostPort(host, fmt.Sprint(tcp.Port)), nil
	}
	return "", fmt.Errorf("the console needs a PLAINTEXT listener to read the broker through (SSL and SASL listeners are not read yet)")
}

// ConsoleAddr is the bound address of karst.console.listener, or nil.
func (n *Node) ConsoleAddr() net.Addr {
	if n.console == nil {
		return nil
	}
	return n.console.Addr()
}
