package config

import (
	"maps"
	"slices"
)

// Source is DescribeConfigs' config_source.
type Source int8

const (
	SourceUnknown              Source = 0
	SourceTopic                Source = 1 // DYNAMIC_TOPIC_CONFIG
	SourceDynamicBroker        Source = 2 // DYNAMIC_BROKER_CONFIG
	SourceDynamicDefaultBroker Source = 3 // DYNAMIC_DEFAULT_BROKER_CONFIG
	SourceStaticBroker         Source = 4 // STATIC_BROKER_CONFIG
	SourceDefault              Source = 5 // DEFAULT_CONFIG
)

func (s Source) String() string {
	switch s {
	case SourceTopic:
		return "DYNAMIC_TOPIC_CONFIG"
	case SourceDynamicBroker:
		return "DYNAMIC_BROKER_CONFIG"
	case SourceDynamicDefaultBroker:
		return "DYNAMIC_DEFAULT_BROKER_CONFIG"
	case SourceStaticBroker:
		return "STATIC_BROKER_CONFIG"
	case SourceDefault:
		return "DEFAULT_CONFIG"
	}
	return "UNKNOWN"
}

// DescribedSynonym is one entry of DescribeConfigs' synonyms (v1+).
type DescribedSynonym struct {
	Name   string
	Value  *string // nil when sensitive
	Source Source
}

// Entry is one config of a DescribeConfigs result.
type Entry struct {
	Name      string
	Value     *string // nil when null or sensitive
	Source    Source
	Sensitive bool
	ReadOnly  bool
	// Synonyms in Kafka's order; send them only when the request asked
	// for synonyms (v1+).
	Synonyms      []DescribedSynonym
	Type          Type   // v3+ config_type (Type.DescribeType)
	Documentation string // v3+, when the request asked for it
}

// IsDefault is the v0 is_default flag.
func (e Entry) IsDefault() bool { return e.Source == SourceDefault }

func strPtr(s string) *string { return &s }

// wanted filters by the request's configuration keys (nil or empty: all).
func wanted(keys []string) func(string) bool {
	if len(keys) == 0 {
		return func(string) bool { return true }
	}
	return func(n string) bool { return slices.Contains(keys, n) }
}

// staticDefaults is Kafka's staticDefaultConfigs: textual defaults of keys
// whose default is not null.
var staticDefaults = func() map[string]string {
	out := map[string]string{}
	for name, v := range brokerKeys.defaults {
		out[name] = formatValue(v)
	}
	return out
}()

// configSynonyms is Kafka's ConfigHelper.configSynonyms: for each layer from
// highest to lowest precedence, every name of the family set there; then
// everything before the first entry for name is dropped.
func (b *Broker) configSynonyms(name string, family []string, sensitive bool) []DescribedSynonym {
	layers := []struct {
		m map[string]string
		s Source
	}{{b.dynBroker, SourceDynamicBroker}, {b.dynDefault, SourceDynamicDefaultBroker}, {b.static, SourceStaticBroker}, {staticDefaults, SourceDefault}}
	var out []DescribedSynonym
	for _, l := range layers {
		for _, n := range family {
			if v, ok := l.m[n]; ok {
				s := DescribedSynonym{Name: n, Source: l.s}
				if !sensitive {
					s.Value = strPtr(v)
				}
				out = append(out, s)
			}
		}
	}
	for i, s := range out {
		if s.Name == name {
			return out[i:]
		}
	}
	return nil
}

// brokerKeyType is the type of a broker key, looking through listener
// prefixes; TypeUnknown for keys Karst does not know.
func brokerKeyType(name string) (*Key, Type) {
	if k, ok := brokerKeys.byName[name]; ok {
		return k, k.Type
	}
	if base, ok := listenerBase(name); ok {
		if k, ok := brokerKeys.byName[base]; ok {
			return k, k.Type
		}
	}
	return nil, TypeUnknown
}

// DescribeBroker is DescribeConfigs for BROKER "<this node.id>": every
// documented broker key plus every other key set statically or dynamically
// (unknown ones as sensitive), sorted by name, restricted to keys when not
// empty.
func (b *Broker) DescribeBroker(keys []string) []Entry {
	names := map[string]bool{}
	for _, n := range brokerKeys.names {
		if !brokerKeys.byName[n].Internal {
			names[n] = true
		}
	}
	for _, m := range []map[string]string{b.static, b.dynDefault, b.dynBroker} {
		for n := range m {
			names[n] = true
		}
	}
	want := wanted(keys)
	var out []Entry
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if want(n) {
			out = append(out, b.brokerEntry(n, true))
		}
	}
	return out
}

// DescribeBrokerDefaults is DescribeConfigs for BROKER "" (the cluster
// default): only the keys set as cluster-wide dynamic defaults.
func (b *Broker) DescribeBrokerDefaults(keys []string) []Entry {
	want := wanted(keys)
	var out []Entry
	for _, n := range slices.Sorted(maps.Keys(b.dynDefault)) {
		if want(n) {
			out = append(out, b.brokerEntry(n, false))
		}
	}
	return out
}

func (b *Broker) brokerEntry(name string, perBroker bool) Entry {
	k, t := brokerKeyType(name)
	sensitive := t.Sensitive()
	e := Entry{Name: name, Type: t, Sensitive: sensitive, ReadOnly: true}
	if k != nil {
		e.Documentation = k.Doc
	}
	if exact, ok := brokerKeys.byName[name]; ok && exact.Mode != ReadOnly {
		e.ReadOnly = false // Kafka: read-only unless in its set of dynamic configs
	}
	if !sensitive {
		if v, ok := b.values[name]; ok && perBroker {
			e.Value = strPtr(formatValue(v))
		} else if raw, ok := lookup(name, b.dynBroker, b.dynDefault, b.static); ok && perBroker {
			e.Value = strPtr(raw)
		} else if raw, ok := b.dynDefault[name]; ok && !perBroker {
			e.Value = strPtr(raw)
		}
	}
	syn := b.configSynonyms(name, brokerSynonymFamily(name), sensitive)
	if !perBroker {
		syn = slices.DeleteFunc(syn, func(s DescribedSynonym) bool { return s.Source != SourceDynamicDefaultBroker })
	}
	e.Synonyms = syn
	e.Source = SourceDefault
	if len(syn) > 0 {
		e.Source = syn[0].Source
	}
	return e
}

// DescribeTopic is DescribeConfigs for a TOPIC: every topic key with its
// effective value, sorted by name, restricted to keys when not empty. The
// synonyms are the topic's own override (DYNAMIC_TOPIC_CONFIG) followed by
// the broker synonyms as DescribeBroker reports them.
func (b *Broker) DescribeTopic(topicOverrides map[string]string, keys []string) ([]Entry, error) {
	tc, err := EffectiveTopicConfig(b, topicOverrides)
	if err != nil {
		return nil, err
	}
	want := wanted(keys)
	var out []Entry
	for _, n := range topicKeys.names {
		if !want(n) || quietTopicKeys[n] && !tc.overridden[n] && len(keys) == 0 {
			continue
		}
		k := topicKeys.byName[n]
		v := tc.values[n]
		value := strPtr(formatValue(v))
		var syn []DescribedSynonym
		if tc.overridden[n] {
			syn = append(syn, DescribedSynonym{Name: n, Value: value, Source: SourceTopic})
		}
		if s := topicSynonyms[n]; len(s) > 0 {
			syn = append(syn, b.configSynonyms(s[0].Name, brokerSynonymFamily(s[0].Name), false)...)
		}
		e := Entry{Name: n, Value: value, Source: SourceDefault, Synonyms: syn, Type: k.Type, Documentation: k.Doc}
		if len(syn) > 0 {
			e.Source = syn[0].Source
		}
		out = append(out, e)
	}
	return out, nil
}
