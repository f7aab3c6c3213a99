package config

// Client-metrics configs (CLIENT_METRICS resources, type 16, KIP-714): a
// named subscription of metric-name prefixes, a push interval and client
// match patterns, as Kafka 4.4's ClientMetricsConfigs defines them.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Client-metrics config keys.
const (
	ClientMetricsMetrics    = "metrics"
	ClientMetricsIntervalMs = "interval.ms"
	ClientMetricsMatch      = "match"
)

// The push interval bounds and default of a subscription.
const (
	clientMetricsMinIntervalMs     = 100
	clientMetricsMaxIntervalMs     = 3600000
	ClientMetricsDefaultIntervalMs = 300000
)

var clientMetricsKeyList = []Key{
	{Name: ClientMetricsMetrics, Type: TypeList, HasDefault: true, Doc: "Telemetry metric name prefix list"},
	{Name: ClientMetricsIntervalMs, Type: TypeInt, Default: strconv.Itoa(ClientMetricsDefaultIntervalMs), HasDefault: true, Doc: "Metrics push interval in milliseconds"},
	{Name: ClientMetricsMatch, Type: TypeList, HasDefault: true, Doc: "Client match criteria"},
}

var clientMetricsKeys = newKeyTable(clientMetricsKeyList)

// The client attributes a subscription may match on.
var clientMatchParams = []string{
	"client_instance_id", "client_id", "client_software_name", "client_software_version",
	"client_source_address", "client_source_port",
}

// ClientMetricsKey returns a client-metrics config key.
func ClientMetricsKey(name string) (Key, bool) {
	k, ok := clientMetricsKeys.byName[name]
	if !ok {
		return Key{}, false
	}
	return *k, true
}

// ApplyClientMetricsChanges applies IncrementalAlterConfigs operations to
// a subscription's configs and returns the new complete set (validate it
// with ValidateClientMetricsConfigs).
func ApplyClientMetricsChanges(current map[string]string, changes []ConfigChange) (map[string]string, error) {
	return applyChanges(current, changes, func(n string) (*Key, bool) {
		k, ok := clientMetricsKeys.byName[n]
		return k, ok
	})
}

// ValidateClientMetricsConfigs is ClientMetricsConfigs.validate: a name,
// known keys, values of their types, an interval of 100 ms to 1 hour and
// match patterns that parse.
func ValidateClientMetricsConfigs(name string, configs map[string]string) error {
	if name == "" {
		return &RequestError{ErrInvalidRequest, "Subscription name can't be empty"}
	}
	for _, k := range slices.Sorted(maps.Keys(configs)) {
		if _, ok := clientMetricsKeys.byName[k]; !ok {
			return &RequestError{ErrInvalidRequest, "Unknown client metrics configuration: " + k}
		}
	}
	parsed := map[string]any{}
	for _, k := range clientMetricsKeyList {
		if raw, ok := configs[k.Name]; ok {
			v, err := k.parse(raw)
			if err != nil {
				return &RequestError{ErrInvalidConfig, err.Error()}
			}
			parsed[k.Name] = v
		}
	}
	if v, ok := parsed[ClientMetricsIntervalMs].(int32); ok && (v < clientMetricsMinIntervalMs || v > clientMetricsMaxIntervalMs) {
		return &RequestError{ErrInvalidRequest, fmt.Sprintf("Invalid value %d for interval.ms, interval must be between 100 and 3600000 (1 hour)", v)}
	}
	if patterns, ok := parsed[ClientMetricsMatch].([]string); ok {
		if _, err := ParseClientMatch(patterns); err != nil {
			return err
		}
	}
	return nil
}

// ParseClientMatch is ClientMetricsConfigs.parseMatchingPatterns: each
// pattern is param=regex for one of the client attributes.
func ParseClientMatch(patterns []string) (map[string]*regexp.Regexp, error) {
	out := map[string]*regexp.Regexp{}
	for _, p := range patterns {
		illegal := &RequestError{ErrInvalidConfig, "Illegal client matching pattern: " + p}
		parts := javaSplit(p, "=")
		if len(parts) != 2 {
			return nil, illegal
		}
		param := javaTrim(parts[0])
		if !slices.Contains(clientMatchParams, param) {
			return nil, illegal
		}
		re, err := regexp.Compile(javaTrim(parts[1]))
		if err != nil {
			return nil, illegal
		}
		out[param] = re
	}
	return out, nil
}

// javaSplit is String.split with a literal separator: trailing empty
// strings are dropped.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// ClientMetricsSubscription is one subscription's effective settings.
type ClientMetricsSubscription struct {
	Name       string
	Metrics    []string
	IntervalMs int32
	Match      map[string]*regexp.Regexp
}

// ClientMetricsSubscriptionFrom reads a subscription from its stored
// configs (already validated; a value that does not parse takes its
// default).
func ClientMetricsSubscriptionFrom(name string, configs map[string]string) ClientMetricsSubscription {
	s := ClientMetricsSubscription{Name: name, IntervalMs: ClientMetricsDefaultIntervalMs, Match: map[string]*regexp.Regexp{}}
	if v, err := clientMetricsKeys.byName[ClientMetricsMetrics].parse(configs[ClientMetricsMetrics]); err == nil {
		s.Metrics, _ = v.([]string)
	}
	if raw, ok := configs[ClientMetricsIntervalMs]; ok {
		if v, err := clientMetricsKeys.byName[ClientMetricsIntervalMs].parse(raw); err == nil {
			s.IntervalMs = v.(int32)
		}
	}
	if v, err := clientMetricsKeys.byName[ClientMetricsMatch].parse(configs[ClientMetricsMatch]); err == nil {
		if m, err := ParseClientMatch(v.([]string)); err == nil {
			s.Match = m
		}
	}
	return s
}

// DescribeClientMetrics is DescribeConfigs for a CLIENT_METRICS resource:
// the three keys, each the subscription's value (CLIENT_METRICS_CONFIG,
// with itself as its one synonym) or the default (no synonyms), in Kafka's
// order.
func DescribeClientMetrics(configs map[string]string, keys []string) []Entry {
	want := wanted(keys)
	var out []Entry
	for _, name := range []string{ClientMetricsIntervalMs, ClientMetricsMatch, ClientMetricsMetrics} {
		if !want(name) {
			continue
		}
		k := clientMetricsKeys.byName[name]
		e := Entry{Name: name, Type: k.Type, Documentation: k.Doc, Value: strPtr(k.Default), Source: SourceDefault}
		if v, ok := configs[name]; ok {
			e.Value, e.Source = strPtr(v), SourceClientMetrics
			e.Synonyms = []DescribedSynonym{{Name: name, Value: strPtr(v), Source: SourceClientMetrics}}
		}
		out = append(out, e)
	}
	return out
}
