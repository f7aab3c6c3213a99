package handler

// DescribeConfigs (key 32), versions 0–4.
//
//	v0: is_default in place of the source, no synonyms (Kafka 4 dropped
//	    it, KIP-896; Karst serves it).
//	v1: include_synonyms; each config's source and synonyms.
//	v2: no change (throttling after the response).
//	v3: include_documentation; config_type and documentation.
//	v4: flexible.
//
// TOPIC resources report every topic config with its effective value: the
// topic's override (DYNAMIC_TOPIC_CONFIG), else its broker synonym through
// the dynamic and static layers, else the default. BROKER resources are this
// node's id (every broker config) or "" (the cluster-wide dynamic defaults
// only). Synonyms are sent only when asked for, documentation likewise;
// values of sensitive configs are null. The values come from
// internal/config, which keeps Kafka's key tables and precedence rules.
//
// As in Kafka: an illegal topic name is INVALID_TOPIC_EXCEPTION, a missing
// topic UNKNOWN_TOPIC_OR_PARTITION, another broker's id or a non-numeric
// one INVALID_REQUEST. GROUP resources (any name but "", which is
// INVALID_REQUEST) report Kafka 4.4's group configs: the group's own value
// (GROUP_CONFIG) or its broker synonym's, internal keys only when set.
// CLIENT_METRICS resources report metrics, interval.ms and match. BROKER_LOGGER
// resources are the log levels (see broker_logger_configs.go). Configs
// come in Kafka's order, a Java HashMap's (config_order.go).

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(32, 0, 4, (*Broker).handleDescribeConfigs) }

func (b *Broker) handleDescribeConfigs(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeConfigsRequest)
	resp := kmsg.NewPtrDescribeConfigsResponse()
	img := b.image()
	cfg, cfgErr := b.brokerConfig(img)
	for _, rr := range req.Resources {
		out := kmsg.NewDescribeConfigsResponseResource()
		out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
		out.Configs = []kmsg.DescribeConfigsResponseResourceConfig{}
		var entries []config.Entry
		var err error
		if int8(rr.ResourceType) == resourceBrokerLogger {
			out.Configs, err = b.describeBrokerLoggers(rr.ResourceName, rr.ConfigNames)
		} else {
			entries, err = b.describeConfigResource(img, cfg, cfgErr, int8(rr.ResourceType), rr.ResourceName, rr.ConfigNames)
		}
		if err != nil {
			out.Configs = []kmsg.DescribeConfigsResponseResourceConfig{}
			out.ErrorCode, out.ErrorMessage = configErrorResult(err)
			if out.ErrorCode == kerr.UnknownTopicOrPartition.Code {
				out.ErrorMessage = nil // Kafka sends the code alone
			}
			resp.Resources = append(resp.Resources, out)
			continue
		}
		sortConfigEntries(int8(rr.ResourceType), rr.ResourceName, entries)
		for _, e := range entries {
			out.Configs = append(out.Configs, describedConfig(e, req.IncludeSynonyms, req.IncludeDocumentation))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return Ready(resp)
}

func (b *Broker) describeConfigResource(img *metadata.Image, cfg *config.Broker, cfgErr error, resType int8, name string, keys []string) ([]config.Entry, error) {
	switch resType {
	case resourceTopic:
		if reason := metadata.ValidateTopicName(name); reason != "" {
			return nil, &config.RequestError{Code: kerr.InvalidTopicException.Code, Message: reason}
		}
		if _, ok := img.Topic(name); !ok {
			return nil, kerr.UnknownTopicOrPartition
		}
		if cfgErr != nil {
			return nil, cfgErr
		}
		return cfg.DescribeTopic(img.TopicConfigs(name), keys)
	case resourceBroker:
		if cfgErr != nil {
			return nil, cfgErr
		}
		if name == "" {
			return cfg.DescribeBrokerDefaults(keys), nil
		}
		if _, err := cfg.CheckBrokerResource(name); err != nil {
			return nil, err
		}
		return cfg.DescribeBroker(keys), nil
	case resourceGroup:
		if name == "" {
			return nil, &config.RequestError{Code: kerr.InvalidRequest.Code, Message: "Group name must not be empty"}
		}
		if cfgErr != nil {
			return nil, cfgErr
		}
		return cfg.DescribeGroup(img.Configs(metadata.ConfigResource{Type: resType, Name: name}), keys), nil
	case resourceClientMetrics:
		if name == "" {
			return nil, &config.RequestError{Code: kerr.InvalidRequest.Code, Message: "Client metrics subscription name must not be empty"}
		}
		return config.DescribeClientMetrics(img.Configs(metadata.ConfigResource{Type: resType, Name: name}), keys), nil
	case resourceBrokerLogger:
		return nil, &config.RequestError{Code: kerr.InvalidRequest.Code, Message: fmt.Sprintf("Karst does not serve configs of resource type %d.", resType)}
	}
	return nil, &config.RequestError{Code: kerr.InvalidRequest.Code, Message: fmt.Sprintf("Unsupported resource type: %d", resType)}
}

func describedConfig(e config.Entry, synonyms, documentation bool) kmsg.DescribeConfigsResponseResourceConfig {
	c := kmsg.NewDescribeConfigsResponseResourceConfig()
	c.Name, c.Value = e.Name, e.Value
	c.ReadOnly = e.ReadOnly
	c.IsDefault = e.IsDefault()
	c.Source = kmsg.ConfigSource(e.Source)
	c.IsSensitive = e.Sensitive
	c.ConfigType = kmsg.ConfigType(e.Type.DescribeType())
	c.ConfigSynonyms = []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym{}
	if synonyms {
		for _, s := range e.Synonyms {
			cs := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
			cs.Name, cs.Value, cs.Source = s.Name, s.Value, kmsg.ConfigSource(s.Source)
			c.ConfigSynonyms = append(c.ConfigSynonyms, cs)
		}
	}
	if documentation && e.Documentation != "" {
		doc := e.Documentation
		c.Documentation = &doc
	}
	return c
}
