package node

import (
	"context"
	"maps"
	"reflect"
	"strconv"
	"sync"

	"log/slog"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/server"
)

// connectionLimits are the connection quotas b sets for listeners.
func connectionLimits(b *config.Broker, listeners []server.Listener) server.ConnectionLimits {
	l := server.ConnectionLimits{
		MaxConnections:                    int(b.Int("max.connections")),
		ListenerMaxConnections:            map[string]int{},
		MaxConnectionsPerIP:               int(b.Int("max.connections.per.ip")),
		MaxConnectionsPerIPOverrides:      b.MaxConnectionsPerIPOverrides(),
		MaxConnectionCreationRate:         int(b.Int("max.connection.creation.rate")),
		ListenerMaxConnectionCreationRate: map[string]int{},
		InterBrokerListener:               b.InterBrokerListenerName(),
	}
	for _, ln := range listeners {
		l.ListenerMaxConnections[ln.Name] = b.ListenerMaxConnections(ln.Name)
		l.ListenerMaxConnectionCreationRate[ln.Name] = b.ListenerMaxConnectionCreationRate(ln.Name)
	}
	return l
}

// dynamicConnectionLimits applies max.connections and the per-IP limits
// set with AlterConfigs to the running server, as Kafka's SocketServer
// reconfigures its ConnectionQuotas. Commits hand over the latest
// limits; one goroutine applies them, since resolving override host names
// may take a while and must not hold up the metadata store.
type dynamicConnectionLimits struct {
	settings  *config.Broker
	nodeID    string
	listeners []server.Listener
	logger    *slog.Logger

	mu sync.Mutex
	// layers are the dynamic broker configs last seen, to skip commits
	// that change none.
	clusterDefault, perBroker map[string]string
	latest                    *server.ConnectionLimits
	wake                      chan struct{}
}

func newDynamicConnectionLimits(cfg *Config, logger *slog.Logger) *dynamicConnectionLimits {
	return &dynamicConnectionLimits{
		settings: cfg.Settings, nodeID: strconv.Itoa(int(cfg.NodeID)), listeners: cfg.Listeners, logger: logger,
		wake: make(chan struct{}, 1),
	}
}

// committed looks at the dynamic broker configs of a committed image.
func (d *dynamicConnectionLimits) committed(img *metadata.Image) {
	if d == nil || d.settings == nil {
		return
	}
	clusterDefault, perBroker := img.BrokerConfigs(""), img.BrokerConfigs(d.nodeID)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.latest != nil && maps.Equal(clusterDefault, d.clusterDefault) && maps.Equal(perBroker, d.perBroker) {
		return
	}
	d.clusterDefault, d.perBroker = clusterDefault, perBroker
	dynamic, err := d.settings.WithDynamic(clusterDefault, perBroker)
	if err != nil {
		d.logger.Error("dynamic broker configs do not apply; connection limits unchanged", "err", err)
		return
	}
	limits := connectionLimits(dynamic, d.listeners)
	d.latest = &limits
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run applies the limits committed until ctx ends.
func (d *dynamicConnectionLimits) run(ctx context.Context, srv *server.Server) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
		d.mu.Lock()
		limits := d.latest
		d.mu.Unlock()
		if limits == nil || reflect.DeepEqual(*limits, srv.ConnectionLimits()) {
			continue
		}
		if err := srv.SetConnectionLimits(ctx, *limits); err != nil {
			d.logger.Error("updating connection limits", "err", err)
			continue
		}
		d.logger.Info("updated connection limits", "max.connections", limits.MaxConnections,
			"max.connections.per.ip", limits.MaxConnectionsPerIP, "max.connections.per.ip.overrides", limits.MaxConnectionsPerIPOverrides,
			"max.connection.creation.rate", limits.MaxConnectionCreationRate, "listener max.connection.creation.rate", limits.ListenerMaxConnectionCreationRate)
	}
}

// initial is what the server starts with: the limits of the dynamic
// configs already committed, else static.
func (d *dynamicConnectionLimits) initial(static *server.ConnectionLimits) *server.ConnectionLimits {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.latest != nil {
		return d.latest
	}
	return static
}
