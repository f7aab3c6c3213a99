package node

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
	"github.com/karst-broker/karst/internal/server"
)

// serverListener is the server's view of a configured listener: its
// security protocol and, for SSL and SASL_SSL, the TLS configuration its
// ssl.* keys (and listener.name.<listener>.ssl.* forms) describe.
func serverListener(b *config.Broker, l config.Listener) (server.Listener, error) {
	out := server.Listener{Name: l.Name, Addr: l.Addr(), SecurityProtocol: l.SecurityProtocol}
	if l.SecurityProtocol != "SSL" && l.SecurityProtocol != "SASL_SSL" {
		return out, nil
	}
	tls, err := tlsconfig.NewListener(listenerTLSSettings(b, l.Name, l.SecurityProtocol))
	if err != nil {
		return out, fmt.Errorf("listener %s: %w", l.Name, err)
	}
	rules := b.ListenerSetting(l.Name, "ssl.principal.mapping.rules")
	mapper, err := principal.ParseSSLMappingRules(rules)
	if err != nil {
		return out, fmt.Errorf("listener %s: ssl.principal.mapping.rules %q: %w", l.Name, rules, err)
	}
	out.TLS, out.PrincipalMapper = tls, mapper
	return out, nil
}

// listenerTLSSettings reads a listener's ssl.* keys. On SASL_SSL,
// ssl.client.auth counts only in its listener.name.<listener>. form and is
// none otherwise, as Kafka's ChannelBuilders sets it ("SSL client
// authentication is enabled in brokers for SASL_SSL only if
// listener-prefixed config is specified"): a broker-wide
// ssl.client.auth=required for its SSL listeners does not ask SASL
// clients for certificates.
func listenerTLSSettings(b *config.Broker, listener, protocol string) tlsconfig.Settings {
	return tlsconfig.SettingsFrom(func(key string) string {
		if key == "ssl.client.auth" && protocol == "SASL_SSL" {
			if v, ok := b.ListenerOverride(listener, key); ok {
				return v
			}
			return "none"
		}
		return b.ListenerSetting(listener, key)
	})
}

// dynamicTLS reloads SSL listeners' key and trust stores when AlterConfigs
// changes their ssl.* keys on this broker, or names a store file again
// after it was rewritten: Kafka's dynamic SSL update. Handshakes after a
// reload use the new stores; open connections keep theirs. A change that
// does not load is logged and the stores in force stay.
type dynamicTLS struct {
	settings  *config.Broker
	nodeID    string
	listeners []server.Listener
	logger    *slog.Logger

	mu                        sync.Mutex
	clusterDefault, perBroker map[string]string
	wake                      chan struct{}
}

func newDynamicTLS(cfg *Config, logger *slog.Logger) *dynamicTLS {
	d := &dynamicTLS{settings: cfg.Settings, nodeID: strconv.Itoa(int(cfg.NodeID)), logger: logger, wake: make(chan struct{}, 1)}
	for _, l := range cfg.Listeners {
		if l.TLS != nil {
			d.listeners = append(d.listeners, l)
		}
	}
	return d
}

// committed notes the dynamic broker configs of a committed image. Every
// commit wakes the reloader, even one that changes no config: an
// AlterConfigs naming a store file again commits its record unchanged,
// and the reloader then looks whether the file was rewritten since it was
// loaded (a stat per store; commits are rare next to requests).
func (d *dynamicTLS) committed(img *metadata.Image) {
	if d == nil || d.settings == nil || len(d.listeners) == 0 {
		return
	}
	clusterDefault, perBroker := img.BrokerConfigs(""), img.BrokerConfigs(d.nodeID)
	d.mu.Lock()
	d.clusterDefault, d.perBroker = clusterDefault, perBroker
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run reloads until ctx ends.
func (d *dynamicTLS) run(ctx context.Context) {
	if d == nil || len(d.listeners) == 0 {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
		d.apply()
	}
}

// apply reloads each SSL listener with the dynamic configs last committed.
func (d *dynamicTLS) apply() {
	d.mu.Lock()
	clusterDefault, perBroker := d.clusterDefault, d.perBroker
	d.mu.Unlock()
	if d.settings == nil || perBroker == nil {
		return
	}
	dynamic, err := d.settings.WithDynamic(clusterDefault, perBroker)
	if err != nil {
		d.logger.Error("dynamic broker configs do not apply; SSL key and trust stores unchanged", "err", err)
		return
	}
	for _, l := range d.listeners {
		switch changed, err := l.TLS.Reload(listenerTLSSettings(dynamic, l.Name, l.SecurityProtocol)); {
		case err != nil:
			d.logger.Error("reloading SSL key and trust stores failed; the ones in force stay", "listener", l.Name, "err", err)
		case changed:
			d.logger.Info("reloaded SSL key and trust stores", "listener", l.Name)
		}
	}
}

// validateSSLUpdate loads the key and trust stores an AlterConfigs on
// this broker would give each SSL listener whose listener.name.<l>.ssl.*
// keys it sets, and refuses the update when they do not load, as Kafka
// validates a dynamic SSL update before storing it (INVALID_REQUEST,
// "Validation of dynamic config update of SSLFactory failed: ...").
// props is the complete new set of the resource's dynamic configs.
func validateSSLUpdate(b *config.Broker, perBroker bool, props map[string]string) error {
	clusterDefault, broker := b.DynamicOverrides()
	if perBroker {
		broker = props
	} else {
		clusterDefault = props
	}
	var next *config.Broker
	for _, l := range b.Listeners() {
		if l.SecurityProtocol != "SSL" && l.SecurityProtocol != "SASL_SSL" || !namesListenerSSL(props, l.Name) {
			continue
		}
		if next == nil {
			var err error
			if next, err = b.WithDynamic(clusterDefault, broker); err != nil {
				return &config.RequestError{Code: config.ErrInvalidRequest, Message: err.Error()}
			}
		}
		if _, err := tlsconfig.Build(listenerTLSSettings(next, l.Name, l.SecurityProtocol)); err != nil {
			return &config.RequestError{Code: config.ErrInvalidRequest,
				Message: "Validation of dynamic config update of SSLFactory failed: listener " + l.Name + ": " + err.Error()}
		}
	}
	return nil
}

func namesListenerSSL(props map[string]string, listener string) bool {
	prefix := "listener.name." + strings.ToLower(listener) + ".ssl."
	for k := range props {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
