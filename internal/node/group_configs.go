package node

import (
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
)

// consumerGroupConfigs applies a group's GROUP-resource configs from the
// cluster metadata to its KIP-848 settings, read at each heartbeat so an
// IncrementalAlterConfigs takes effect at the members' next heartbeat, as
// in Kafka.
func consumerGroupConfigs(store *metadata.Store, settings *config.Broker) func(string, group.ConsumerConfig) group.ConsumerConfig {
	return func(groupID string, cfg group.ConsumerConfig) group.ConsumerConfig {
		set := store.Image().Configs(metadata.ConfigResource{Type: metadata.ConfigResourceGroup, Name: groupID})
		if _, ok := set["consumer.session.timeout.ms"]; ok {
			cfg.SessionTimeout = time.Duration(settings.GroupInt(set, "consumer.session.timeout.ms")) * time.Millisecond
		}
		if _, ok := set["consumer.heartbeat.interval.ms"]; ok {
			cfg.HeartbeatInterval = time.Duration(settings.GroupInt(set, "consumer.heartbeat.interval.ms")) * time.Millisecond
		}
		return cfg
	}
}
