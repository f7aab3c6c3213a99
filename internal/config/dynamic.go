package config

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Dynamic broker configs are the two layers AlterConfigs writes on a BROKER
// resource: the cluster default (resource name "") and this broker's own
// (resource name "<node.id>"). The metadata layer persists them (as
// ConfigRecords); this file says which changes Kafka allows and builds the
// resulting snapshot.

// keystoreKeys may only be changed dynamically with a listener prefix
// (Kafka's SslConfigs.RECONFIGURABLE_CONFIGS).
var keystoreKeys = []string{
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password",
	"ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.certificates",
}

// clusterLevelListenerKeys may be set per listener at the cluster level.
var clusterLevelListenerKeys = []string{"max.connections", "max.connection.creation.rate", "num.network.threads"}

// CheckBrokerResource interprets a BROKER resource name of AlterConfigs or
// DescribeConfigs: "" is the cluster default, otherwise it must be this
// node's id. perBroker reports which.
func (b *Broker) CheckBrokerResource(name string) (perBroker bool, err error) {
	if name == "" {
		return false, nil
	}
	id, perr := strconv.ParseInt(name, 10, 32)
	if perr != nil {
		return false, &RequestError{ErrInvalidRequest, "Node id must be an integer, but it is: " + name}
	}
	if int32(id) != b.NodeID() {
		return false, &RequestError{ErrInvalidRequest, "Unexpected broker id, expected " + strconv.Itoa(int(b.NodeID())) + ", but received " + name}
	}
	return true, nil
}

// javaSet renders names the way Kafka 4.4.0's messages print them: a
// java.util.HashSet's toString, "[a, b]", in the set's iteration order
// (by bucket of String.hashCode, the table grown as a HashSet grows it;
// names in one bucket by name). Measured against Kafka 4.4.0:
// "Cannot update these configs dynamically: [num.partitions, log.dirs]".
func javaSet(names []string) string {
	size := uint32(16)
	for float64(len(names)) > 0.75*float64(size) {
		size *= 2
	}
	bucket := func(s string) uint32 {
		var h uint32
		for _, c := range utf16.Encode([]rune(s)) {
			h = 31*h + uint32(c)
		}
		return (h ^ h>>16) & (size - 1)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(bucket(a), bucket(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return "[" + strings.Join(names, ", ") + "]"
}

// ValidateDynamicConfigs checks the complete new set of dynamic configs of
// one BROKER resource (after applying the request's operations) with
// Kafka's rules: read-only keys are refused ("Cannot update these configs
// dynamically: [...]"), key store keys need a listener prefix, values
// must parse, per-broker keys cannot be cluster defaults ("Cannot update
// these configs at default cluster level, broker id must be specified:
// [...]"), and the resulting configuration must be valid. Keys Karst does
// not know are allowed, as in Kafka. Errors are *RequestError with Code
// ErrInvalidRequest, as Kafka answers them.
func (b *Broker) ValidateDynamicConfigs(perBroker bool, props map[string]string) error {
	fail := func(msg string) error { return &RequestError{ErrInvalidRequest, msg} }
	var readOnly, needPrefix, perBrokerOnly []string
	for name := range props {
		if k, ok := brokerKeys.byName[name]; ok {
			if k.Mode == ReadOnly {
				readOnly = append(readOnly, name)
			}
			if slices.Contains(keystoreKeys, name) {
				needPrefix = append(needPrefix, name)
			}
			if k.Mode == PerBroker {
				perBrokerOnly = append(perBrokerOnly, name)
			}
		}
		if base, ok := listenerBase(name); ok && !slices.Contains(clusterLevelListenerKeys, base) {
			perBrokerOnly = append(perBrokerOnly, name)
		}
	}
	if len(readOnly) > 0 {
		return fail("Cannot update these configs dynamically: " + javaSet(readOnly))
	}
	if len(needPrefix) > 0 {
		return fail("These security configs can be dynamically updated only per-listener using the listener prefix: " + javaSet(needPrefix))
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		k, _ := brokerKeyType(name)
		if k == nil {
			continue
		}
		if _, err := k.parse(props[name]); err != nil {
			if ce, ok := err.(*ConfigError); ok {
				ce.Key = name
			}
			return fail(err.Error())
		}
	}
	if !perBroker && len(perBrokerOnly) > 0 {
		return fail("Cannot update these configs at default cluster level, broker id must be specified: " + javaSet(perBrokerOnly))
	}
	dynDefault, dynBroker := b.dynDefault, maps.Clone(props)
	if !perBroker {
		dynDefault, dynBroker = maps.Clone(props), b.dynBroker
	}
	if _, _, err := build(b.static, dynDefault, dynBroker); err != nil {
		return fail(err.Error())
	}
	return nil
}

// WithDynamic returns a snapshot with the given dynamic layers (each the
// complete set for its resource) over this one's static configuration. It
// checks values but not update modes: replaying stored records must not
// fail because a key's mode changed; use ValidateDynamicConfigs on requests.
func (b *Broker) WithDynamic(clusterDefault, perBroker map[string]string) (*Broker, error) {
	nb, _, err := build(b.static, maps.Clone(clusterDefault), maps.Clone(perBroker))
	return nb, err
}

// AlterOp is an IncrementalAlterConfigs operation.
type AlterOp int8

const (
	OpSet      AlterOp = 0
	OpDelete   AlterOp = 1
	OpAppend   AlterOp = 2
	OpSubtract AlterOp = 3
)

// ConfigChange is one operation of IncrementalAlterConfigs, or one entry
// of (legacy) AlterConfigs as an OpSet.
type ConfigChange struct {
	Name  string
	Op    AlterOp
	Value *string
}

// ApplyTopicChanges applies IncrementalAlterConfigs operations to a topic's
// current overrides and returns the new complete set (validate it with
// ValidateTopicConfigs).
func ApplyTopicChanges(current map[string]string, changes []ConfigChange) (map[string]string, error) {
	return applyChanges(current, changes, func(n string) (*Key, bool) {
		k, ok := topicKeys.byName[n]
		return k, ok
	})
}

// ApplyBrokerChanges is ApplyTopicChanges for a BROKER resource's dynamic
// configs (validate the result with ValidateDynamicConfigs).
func ApplyBrokerChanges(current map[string]string, changes []ConfigChange) (map[string]string, error) {
	return applyChanges(current, changes, func(n string) (*Key, bool) {
		k, _ := brokerKeyType(n)
		return k, k != nil
	})
}

func applyChanges(current map[string]string, changes []ConfigChange, key func(string) (*Key, bool)) (map[string]string, error) {
	seen := map[string]bool{}
	var nulls []string
	for _, c := range changes {
		if seen[c.Name] {
			return nil, &RequestError{ErrInvalidRequest, "Error due to duplicate config keys"}
		}
		seen[c.Name] = true
		if c.Op != OpDelete && c.Value == nil {
			nulls = append(nulls, c.Name)
		}
	}
	if len(nulls) > 0 {
		return nil, &RequestError{ErrInvalidRequest, "Null value not supported for : " + strings.Join(nulls, ", ")}
	}
	out := maps.Clone(current)
	if out == nil {
		out = map[string]string{}
	}
	for _, c := range changes {
		switch c.Op {
		case OpSet:
			out[c.Name] = *c.Value
		case OpDelete:
			delete(out, c.Name)
		case OpAppend, OpSubtract:
			verb := "APPEND"
			if c.Op == OpSubtract {
				verb = "SUBTRACT"
			}
			k, ok := key(c.Name)
			if !ok {
				return nil, &RequestError{ErrInvalidConfig, "Can't " + verb + " to key " + c.Name + " because its type is not known."}
			}
			if k.Type != TypeList {
				return nil, &RequestError{ErrInvalidConfig, "Can't " + verb + " to key " + c.Name + " because its type is not LIST."}
			}
			old, ok := out[c.Name]
			if !ok {
				old = k.Default
			}
			var parts []string
			if old != "" {
				parts = strings.Split(old, ",")
			}
			for _, v := range strings.Split(*c.Value, ",") {
				if c.Op == OpAppend && !slices.Contains(parts, v) {
					parts = append(parts, v)
				}
				if c.Op == OpSubtract {
					parts = slices.DeleteFunc(parts, func(p string) bool { return p == v })
				}
			}
			out[c.Name] = strings.Join(parts, ",")
		default:
			return nil, &RequestError{ErrInvalidRequest, "Unknown operations type " + strconv.Itoa(int(c.Op))}
		}
	}
	return out, nil
}
