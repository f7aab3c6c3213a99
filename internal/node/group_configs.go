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
	return groupTimings(store, settings, "consumer.", func(c *group.ConsumerConfig) (*time.Duration, *time.Duration) {
		return &c.SessionTimeout, &c.HeartbeatInterval
	})
}

// shareGroupConfigs does the same for share groups (share.session.timeout.ms,
// share.heartbeat.interval.ms).
func shareGroupConfigs(store *metadata.Store, settings *config.Broker) func(string, group.ShareConfig) group.ShareConfig {
	return groupTimings(store, settings, "share.", func(c *group.ShareConfig) (*time.Duration, *time.Duration) {
		return &c.SessionTimeout, &c.HeartbeatInterval
	})
}

// groupTimings applies a group's own <prefix>session.timeout.ms and
// <prefix>heartbeat.interval.ms to the two durations fields gives of C.
func groupTimings[C any](store *metadata.Store, settings *config.Broker, prefix string, fields func(*C) (*time.Duration, *time.Duration)) func(string, C) C {
	return func(groupID string, cfg C) C {
		set := store.Image().Configs(metadata.ConfigResource{Type: metadata.ConfigResourceGroup, Name: groupID})
		session, interval := fields(&cfg)
		for key, d := range map[string]*time.Duration{prefix + "session.timeout.ms": session, prefix + "heartbeat.interval.ms": interval} {
			if _, ok := set[key]; ok {
				*d = time.Duration(settings.GroupInt(set, key)) * time.Millisecond
			}
		}
		return cfg
	}
}
