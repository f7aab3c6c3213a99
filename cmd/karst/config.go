package main

import (
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
		warnings = append(warnings, w.Message)
	}
	cfg, err := node.ConfigFrom(b)
	return cfg, warnings, err
}
