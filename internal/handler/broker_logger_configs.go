package handler

// Configs of BROKER_LOGGER resources (type 8): the broker's log levels,
// changed at run time, as Kafka's ConfigHelper and RuntimeLoggerManager
// serve them. The resource is this node's id; its configs are the loggers
// (root and Karst's package loggers below "karst", see internal/loglevel),
// each valued with the level in force for it.
//
// DescribeConfigs lists every logger (or the named ones that exist) with
// source DYNAMIC_BROKER_LOGGER_CONFIG, config type UNKNOWN and no synonyms.
// IncrementalAlterConfigs SETs a logger's level (TRACE, DEBUG, INFO, WARN,
// ERROR or FATAL, exact case) or DELETEs it so the logger follows its
// ancestors again; APPEND and SUBTRACT are refused, as is deleting root's
// level. Legacy AlterConfigs does not know the type ("Unknown resource type
// 8"). The errors and messages are Kafka 4.4.0's. Levels are not stored:
// like log4j's, they last until the broker restarts.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/loglevel"
)

// configSourceDynamicBrokerLogger is DYNAMIC_BROKER_LOGGER_CONFIG.
const configSourceDynamicBrokerLogger = 6

func (b *Broker) describeBrokerLoggers(name string, keys []string) ([]kmsg.DescribeConfigsResponseResourceConfig, error) {
	invalid := func(msg string) error { return &config.RequestError{Code: kerr.InvalidRequest.Code, Message: msg} }
	if name == "" {
		return nil, invalid("Broker id must not be empty")
	}
	id, err := strconv.ParseInt(name, 10, 32)
	if err != nil {
		return nil, invalid("Broker id must be an integer, but it is: " + name)
	}
	if int32(id) != b.opts.NodeID {
		return nil, invalid(fmt.Sprintf("Unexpected broker id, expected %d but received %s", b.opts.NodeID, name))
	}
	wanted := map[string]bool{}
	for _, k := range keys {
		wanted[k] = true
	}
	out := []kmsg.DescribeConfigsResponseResourceConfig{}
	for _, l := range b.opts.LogLevels.Loggers() {
		if len(wanted) > 0 && !wanted[l.Name] {
			continue
		}
		c := kmsg.NewDescribeConfigsResponseResourceConfig()
		level, empty := l.Level, ""
		c.Name, c.Value, c.Documentation = l.Name, &level, &empty
		c.Source = configSourceDynamicBrokerLogger
		c.ConfigSynonyms = []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym{}
		out = append(out, c)
	}
	return out, nil
}

// alterBrokerLoggers checks every change as Kafka's preprocessing and
// RuntimeLoggerManager do, in their order, then applies them all unless
// validateOnly.
func (b *Broker) alterBrokerLoggers(name string, configs []config.ConfigChange, validateOnly bool) (int16, *string) {
	fail := func(code int16, msg string) (int16, *string) { return code, &msg }
	seen := map[string]bool{}
	var nulls []string
	for _, c := range configs {
		if seen[c.Name] {
			return fail(kerr.InvalidRequest.Code, "Error due to duplicate config keys")
		}
		seen[c.Name] = true
		if c.Op != config.OpDelete && c.Value == nil {
			nulls = append(nulls, c.Name)
		}
	}
	if len(nulls) > 0 {
		return fail(kerr.InvalidRequest.Code, "Null value not supported for : "+strings.Join(nulls, ", "))
	}
	id, err := strconv.ParseInt(name, 10, 32)
	if err != nil {
		return fail(kerr.InvalidRequest.Code, "Node id must be an integer, but it is: "+name)
	}
	if int32(id) != b.opts.NodeID {
		return fail(kerr.InvalidRequest.Code, fmt.Sprintf("Unexpected node id. Expected %d, but received %s", b.opts.NodeID, name))
	}
	levels := b.opts.LogLevels
	for _, c := range configs {
		switch c.Op {
		case config.OpSet:
			if !levels.Exists(c.Name) {
				return fail(kerr.InvalidConfig.Code, "Logger "+c.Name+" does not exist!")
			}
			if _, ok := loglevel.Parse(*c.Value); !ok {
				return fail(kerr.InvalidConfig.Code, fmt.Sprintf("Cannot set the log level of %s to %s as it is not a supported log level. Valid log levels are %s",
					c.Name, *c.Value, loglevel.ValidNames()))
			}
		case config.OpDelete:
			if !levels.Exists(c.Name) {
				return fail(kerr.InvalidConfig.Code, "Logger "+c.Name+" does not exist!")
			}
			if c.Name == loglevel.Root {
				return fail(kerr.InvalidRequest.Code, "Removing the log level of the root logger is not allowed")
			}
		case config.OpAppend, config.OpSubtract:
			return fail(kerr.InvalidRequest.Code, kmsg.IncrementalAlterConfigOp(c.Op).String()+" operation is not allowed for the BROKER_LOGGER resource")
		default:
			return fail(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown operation type %d is not allowed for the BROKER_LOGGER resource", int8(c.Op)))
		}
	}
	if validateOnly {
		return 0, nil
	}
	for _, c := range configs {
		var err error
		if c.Op == config.OpSet {
			err = levels.Set(c.Name, *c.Value)
			b.logger.Warn("updated the log level", "logger", c.Name, "level", *c.Value)
		} else {
			err = levels.Unset(c.Name)
			b.logger.Warn("unset the log level", "logger", c.Name)
		}
		if err != nil { // checked above; only a logger removed meanwhile gets here
			return fail(kerr.InvalidConfig.Code, err.Error())
		}
	}
	return 0, nil
}
