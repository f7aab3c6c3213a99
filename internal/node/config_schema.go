package node

import (
	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
)

// configSchema lets the metadata operations validate topic, broker,
// group and client-metrics configs with Kafka's rules from internal/config.
type configSchema struct{ broker *config.Broker }

func (s configSchema) Validate(res metadata.ConfigResource, configs map[string]string) error {
	switch res.Type {
	case metadata.ConfigResourceGroup:
		return s.broker.ValidateGroupConfigs(configs)
	case metadata.ConfigResourceClientMetrics:
		return config.ValidateClientMetricsConfigs(res.Name, configs)
	case metadata.ConfigResourceBroker:
		perBroker, err := s.broker.CheckBrokerResource(res.Name)
		if err != nil {
			return err
		}
		if err := s.broker.ValidateDynamicConfigs(perBroker, configs); err != nil {
			return err
		}
		return validateSSLUpdate(s.broker, perBroker, configs)
	}
	values := make(map[string]*string, len(configs))
	for k, v := range configs {
		values[k] = &v
	}
	return s.broker.ValidateTopicConfigs(values)
}

func (s configSchema) key(res metadata.ConfigResource, name string) (config.Key, bool) {
	switch res.Type {
	case metadata.ConfigResourceBroker:
		return config.BrokerKey(name)
	case metadata.ConfigResourceGroup:
		return config.GroupKey(name)
	case metadata.ConfigResourceClientMetrics:
		return config.ClientMetricsKey(name)
	}
	return config.TopicKey(name)
}

func (s configSchema) IsList(res metadata.ConfigResource, name string) bool {
	k, ok := s.key(res, name)
	return ok && k.Type == config.TypeList
}

func (s configSchema) Default(res metadata.ConfigResource, name string) (string, bool) {
	k, ok := s.key(res, name)
	if !ok || !k.HasDefault {
		return "", false
	}
	return k.Default, true
}
