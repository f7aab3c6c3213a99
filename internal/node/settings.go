package node

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/handler"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/internal/storage"
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
		LogDefaults:              brokerLogDefaults(b),
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
		cfg.Listeners = append(cfg.Listeners, server.Listener{Name: l.Name, Addr: l.Addr()})
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

// brokerLogDefaults are the log settings a topic without overrides gets:
// the topic keys' values resolved through their broker synonyms. Kafka's
// flush settings switch a log to page-cache durability only when the
// operator set them; their defaults (never flush) would otherwise turn
// off Karst's fsync per acknowledgement.
func brokerLogDefaults(b *config.Broker) klog.Config {
	values := map[string]string{}
	for k, v := range b.TopicDefaults() {
		if list, ok := v.([]string); ok {
			values[k] = strings.Join(list, ",") // as a topic config carries a list
			continue
		}
		values[k] = fmt.Sprint(v)
	}
	if !b.IsSet("log.flush.interval.messages") {
		delete(values, "flush.messages")
	}
	if !b.IsSet("log.flush.interval.ms") && !b.IsSet("log.flush.scheduler.interval.ms") {
		delete(values, "flush.ms")
	}
	for _, k := range []string{"retention.ms", "segment.ms"} {
		if _, err := strconv.ParseInt(values[k], 10, 64); err != nil {
			delete(values, k)
		}
	}
	return storage.TopicLogConfig(klog.DefaultConfig(), values)
}
