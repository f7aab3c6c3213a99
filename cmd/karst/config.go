package main

import (
	"fmt"
	"strings"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/node"
)

// loadNodeConfig reads the properties file (if any), applies the overrides
// in order and turns the result into a node configuration; the warnings
// name keys Karst does not know.
func loadNodeConfig(sa serveArgs) (node.Config, []string, error) {
	b, warns, err := config.Load(sa.propertiesFile, sa.overrides)
	if err != nil {
		return node.Config{}, nil, err
	}
	var warnings []string
	for _, w := range warns {
		warnings = append(warnings, w.Message+topicKeyHint(w.Key))
	}
	cfg, err := node.ConfigFrom(b)
	return cfg, warnings, err
}

// topicKeyHint explains an unknown broker key that is a topic key
// (segment.bytes given to the broker): Kafka ignores it with the same
// warning and starts, and so does Karst, so the warning says which broker
// key sets that topic default.
func topicKeyHint(key string) string {
	if _, ok := config.TopicKey(key); !ok {
		return ""
	}
	var names []string
	for _, s := range config.TopicSynonyms(key) {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return fmt.Sprintf(" '%s' is a topic config: set it per topic (CreateTopics, AlterConfigs); it is ignored here.", key)
	}
	return fmt.Sprintf(" '%s' is a topic config, ignored here; the broker's default for it is %s.", key, strings.Join(names, " or "))
}
