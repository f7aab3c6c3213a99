package config

import (
	"maps"
	"strconv"
	"sync"
)

// DynamicConfigs holds the configs set at run time (the metadata image):
// each topic's overrides and the BROKER resources' configs ("" is the
// cluster default, "<node.id>" one broker's).
type DynamicConfigs interface {
	TopicConfigs(topic string) map[string]string
	BrokerConfigs(name string) map[string]string
}

// layers are the configs above the static broker configuration that a
// topic's log configuration is resolved from.
type layers struct {
	Topic          map[string]string // DYNAMIC_TOPIC_CONFIG: the topic's overrides
	PerBroker      map[string]string // DYNAMIC_BROKER_CONFIG
	ClusterDefault map[string]string // DYNAMIC_DEFAULT_BROKER_CONFIG
}

// layersOf reads a topic's layers from dyn (none when dyn is nil); topic
// "" reads only the broker's.
func (c *LogConfigs) layersOf(dyn DynamicConfigs, topic string) layers {
	if dyn == nil {
		return layers{}
	}
	l := layers{PerBroker: dyn.BrokerConfigs(c.nodeID), ClusterDefault: dyn.BrokerConfigs("")}
	if topic != "" {
		l.Topic = dyn.TopicConfigs(topic)
	}
	return l
}

// LogConfigs resolves each topic's log configuration (Kafka's LogConfig:
// topic overrides over dynamic broker configs over the static ones over
// Kafka's defaults) once, and again only when one of its layers changed.
// Everything that acts on a topic's configuration — the logs (retention,
// segments, timestamps, message size), Produce (compression, compaction),
// DeleteRecords, the coordinators — asks here, so they agree. Safe for
// concurrent use.
type LogConfigs struct {
	static *Broker
	nodeID string // the BROKER resource name of this node's own layer

	mu     sync.RWMutex
	broker dynamicBroker
	topics map[string]resolvedTopic
}

// dynamicBroker is the static configuration under one pair of dynamic
// layers.
type dynamicBroker struct {
	clusterDefault, perBroker map[string]string
	config                    *Broker
}

// resolvedTopic is a topic's configuration and what it was resolved from.
type resolvedTopic struct {
	overrides map[string]string
	broker    *Broker
	config    *TopicConfig
}

// NewLogConfigs resolves over the given static broker configuration.
func NewLogConfigs(static *Broker) *LogConfigs {
	return &LogConfigs{static: static, nodeID: strconv.Itoa(int(static.NodeID())), broker: dynamicBroker{config: static}, topics: map[string]resolvedTopic{}}
}

// Broker is the broker configuration under the dynamic broker configs of
// dyn. Stored dynamic configs that no longer build a valid configuration
// leave the static one in force.
func (c *LogConfigs) Broker(dyn DynamicConfigs) *Broker {
	l := c.layersOf(dyn, "")
	c.mu.RLock()
	b := c.broker
	c.mu.RUnlock()
	if b.matches(l) {
		return b.config
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokerLocked(l)
}

func (b dynamicBroker) matches(l layers) bool {
	return maps.Equal(b.clusterDefault, l.ClusterDefault) && maps.Equal(b.perBroker, l.PerBroker)
}

func (c *LogConfigs) brokerLocked(l layers) *Broker {
	if c.broker.matches(l) {
		return c.broker.config
	}
	nb, err := c.static.WithDynamic(l.ClusterDefault, l.PerBroker)
	if err != nil {
		nb = c.static
	}
	c.broker = dynamicBroker{clusterDefault: maps.Clone(l.ClusterDefault), perBroker: maps.Clone(l.PerBroker), config: nb}
	return nb
}

// Topic is the log configuration of topic under the dynamic configs of dyn
// (nil: the static configuration alone). The result is shared: do not
// modify it. Overrides were validated when they were set; one that no
// longer parses is left out, so the topic keeps the broker's value for it.
func (c *LogConfigs) Topic(dyn DynamicConfigs, topic string) *TopicConfig {
	l := c.layersOf(dyn, topic)
	c.mu.RLock()
	b := c.broker
	r, ok := c.topics[topic]
	c.mu.RUnlock()
	if ok && b.matches(l) && r.broker == b.config && maps.Equal(r.overrides, l.Topic) {
		return r.config
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	broker := c.brokerLocked(l)
	if r, ok := c.topics[topic]; ok && r.broker == broker && maps.Equal(r.overrides, l.Topic) {
		return r.config
	}
	tc, err := EffectiveTopicConfig(broker, l.Topic)
	if err != nil {
		tc, _ = EffectiveTopicConfig(broker, parsableOverrides(l.Topic))
	}
	c.topics[topic] = resolvedTopic{overrides: maps.Clone(l.Topic), broker: broker, config: tc}
	return tc
}

// Forget drops a deleted topic's resolved configuration.
func (c *LogConfigs) Forget(topic string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.topics, topic)
}

func parsableOverrides(overrides map[string]string) map[string]string {
	out := map[string]string{}
	for name, v := range overrides {
		if k, ok := topicKeys.byName[name]; ok {
			if _, err := k.parse(v); err == nil {
				out[name] = v
			}
		}
	}
	return out
}
