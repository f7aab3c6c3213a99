package node

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/handler"
)

// ConfigFrom turns loaded broker settings (server.properties and
// overrides) into a node configuration.
func ConfigFrom(b *config.Broker) (Config, error) {
	cfg := Config{
		NodeID:                   b.NodeID(),
		ClusterID:                b.ClusterID(),
		MaxRequestSize:           b.Int("socket.request.max.bytes"),
		SendBufferBytes:          int(b.Int("socket.send.buffer.bytes")),
		ReceiveBufferBytes:       int(b.Int("socket.receive.buffer.bytes")),
		IdleTimeout:              time.Duration(b.Long("connections.max.idle.ms")) * time.Millisecond,
		QueuedMaxRequestBytes:    b.Long("queued.max.request.bytes"),
		AutoCreateTopics:         b.Bool("auto.create.topics.enable"),
		DefaultPartitions:        b.Int("num.partitions"),
		DefaultReplicationFactor: int16(b.Int("default.replication.factor")),
		RetentionCheckInterval:   time.Duration(b.Long("log.retention.check.interval.ms")) * time.Millisecond,
		RecoveryThreads:          int(b.Int("num.recovery.threads.per.data.dir")),
		Settings:                 b,
	}
	cfg.DataDirs = b.LogDirs()
	if meta := b.MetadataLogDir(); filepath.Clean(meta) != filepath.Clean(cfg.DataDirs[0]) {
		return cfg, fmt.Errorf("metadata.log.dir %s: Karst keeps the metadata log in the first of log.dirs (%s)", meta, cfg.DataDirs[0])
	}
	cfg.DataDir = cfg.DataDirs[0]
	controllers := b.ControllerListenerNames()
	for _, l := range b.Listeners() {
		if slices.Contains(controllers, l.Name) {
			continue // a single Karst node is its own controller; no listener needed
		}
		sl, err := serverListener(b, l)
		if err != nil {
			return cfg, err
		}
		if sl.SASL, err = saslListener(b, l); err != nil {
			return cfg, err
		}
		cfg.Listeners = append(cfg.Listeners, sl)
	}
	if len(cfg.Listeners) == 0 {
		return cfg, fmt.Errorf("listeners has no client listener")
	}
	limits := connectionLimits(b, cfg.Listeners)
	cfg.ConnectionLimits = &limits
	for _, l := range b.AdvertisedListeners() {
		cfg.Advertised = append(cfg.Advertised, handler.Endpoint{ListenerName: l.Name, Host: l.Host, Port: int32(l.Port), SecurityProtocol: l.SecurityProtocol})
	}
	return cfg, nil
}
