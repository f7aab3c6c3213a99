package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// validHostPattern is Kafka's Utils.validHostPattern: the characters a
// host name or an IP address (v6 included) may have.
var validHostPattern = regexp.MustCompile(`^[0-9a-zA-Z\-%._:]*$`)

// ParseConnectionOverrides reads max.connections.per.ip.overrides as
// Kafka's Csv.parseCsvMap does: comma-separated host:count pairs, split at
// the last colon so IPv6 addresses need no brackets, blanks around commas
// and around each part ignored.
func ParseConnectionOverrides(s string) (map[string]int, error) {
	const key = "max.connections.per.ip.overrides"
	out := map[string]int{}
	if s == "" {
		return out, nil
	}
	pairs := commaWithBlanks.Split(s, -1)
	for len(pairs) > 0 && pairs[len(pairs)-1] == "" {
		pairs = pairs[:len(pairs)-1] // Java's String.split drops trailing empty strings
	}
	var invalidHosts []string
	for _, pair := range pairs {
		i := strings.LastIndex(pair, ":")
		if i < 0 {
			return nil, &ConfigError{Key: key, NoValue: true,
				Rule: fmt.Sprintf("Error parsing configuration property '%s': %q is not host:count", key, pair)}
		}
		host, count := strings.TrimSpace(pair[:i]), strings.TrimSpace(pair[i+1:])
		n, err := strconv.ParseInt(count, 10, 32)
		if err != nil {
			return nil, &ConfigError{Key: key, NoValue: true, Rule: fmt.Sprintf("For input string: %q", count)}
		}
		if !validHostPattern.MatchString(host) {
			invalidHosts = append(invalidHosts, host)
		}
		out[host] = int(n)
	}
	if len(invalidHosts) > 0 {
		return nil, &ConfigError{Key: key, NoValue: true, Rule: key + " contains invalid addresses : " + strings.Join(invalidHosts, ",")}
	}
	return out, nil
}

// MaxConnectionsPerIPOverrides is max.connections.per.ip.overrides, parsed
// (build checked it).
func (b *Broker) MaxConnectionsPerIPOverrides() map[string]int {
	m, _ := ParseConnectionOverrides(b.String("max.connections.per.ip.overrides"))
	return m
}

// ListenerMaxConnections is listener.name.<listener>.max.connections if
// set, else max.connections (Kafka's per-listener connection quota).
func (b *Broker) ListenerMaxConnections(listener string) int {
	return b.listenerInt(listener, "max.connections")
}

// ListenerMaxConnectionCreationRate is
// listener.name.<listener>.max.connection.creation.rate if set, else
// max.connection.creation.rate (KIP-612's per-listener rate).
func (b *Broker) ListenerMaxConnectionCreationRate(listener string) int {
	return b.listenerInt(listener, "max.connection.creation.rate")
}

// listenerInt is the listener's override of the int key, else the key's
// broker value.
func (b *Broker) listenerInt(listener, key string) int {
	if raw, ok := b.ListenerOverride(listener, key); ok {
		if v, err := parseValue(key, raw, TypeInt); err == nil {
			return int(v.(int32))
		}
	}
	return int(b.Int(key))
}

// checkConnectionQuotas applies KafkaConfig's rules on the per-IP limits.
func (b *Broker) checkConnectionQuotas() error {
	overrides, err := ParseConnectionOverrides(b.String("max.connections.per.ip.overrides"))
	if err != nil {
		return err
	}
	if b.Int("max.connections.per.ip") == 0 && len(overrides) == 0 {
		return &ConfigError{Key: "max.connections.per.ip", NoValue: true,
			Rule: "requirement failed: max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set."}
	}
	return nil
}
