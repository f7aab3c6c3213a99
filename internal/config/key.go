package config

import "sort"

// UpdateMode says whether AlterConfigs may change a broker key at run time,
// as Kafka's docs list it under "Update Mode".
type UpdateMode int8

const (
	// ReadOnly keys take effect only from server.properties at start.
	ReadOnly UpdateMode = iota
	// PerBroker keys may be set dynamically for one broker only.
	PerBroker
	// ClusterWide keys may be set for one broker or as the cluster default.
	ClusterWide
)

func (m UpdateMode) String() string {
	switch m {
	case PerBroker:
		return "per-broker"
	case ClusterWide:
		return "cluster-wide"
	}
	return "read-only"
}

// Key defines one config key.
type Key struct {
	Name string
	Type Type
	// Default is the default value as text; HasDefault is false when Kafka's
	// default is null (the key is then unset unless configured).
	Default    string
	HasDefault bool
	// Validator, if any, checks values beyond their type.
	Validator Validator
	// Doc is a one-line description.
	Doc string
	// Mode is the dynamic-update mode (broker keys only).
	Mode UpdateMode
	// Internal keys are accepted but not reported by DescribeConfigs.
	Internal bool
	// Karst marks a key Karst adds, or whose default differs from Kafka's.
	Karst bool
}

// parse converts and validates a textual value for this key.
func (k *Key) parse(raw string) (any, error) {
	v, err := parseValue(k.Name, raw, k.Type)
	if err != nil {
		return nil, err
	}
	if k.Validator != nil {
		if err := k.Validator.check(k.Name, raw, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// defaultValue is the parsed default, or nil when there is none.
func (k *Key) defaultValue() any {
	if !k.HasDefault {
		return nil
	}
	v, err := parseValue(k.Name, k.Default, k.Type)
	if err != nil {
		panic("config: bad default for " + k.Name + ": " + err.Error())
	}
	return v
}

// keyTable is an immutable set of keys with their parsed defaults.
type keyTable struct {
	byName   map[string]*Key
	defaults map[string]any
	names    []string // sorted
}

func newKeyTable(keys []Key) *keyTable {
	t := &keyTable{byName: map[string]*Key{}, defaults: map[string]any{}}
	for i := range keys {
		k := &keys[i]
		if _, dup := t.byName[k.Name]; dup {
			panic("config: key defined twice: " + k.Name)
		}
		t.byName[k.Name] = k
		if k.HasDefault {
			t.defaults[k.Name] = k.defaultValue()
		}
		t.names = append(t.names, k.Name)
	}
	sort.Strings(t.names)
	return t
}

// Key constructors keep the tables readable.

func def(name string, t Type, dflt string, v Validator, mode UpdateMode, doc string) Key {
	return Key{Name: name, Type: t, Default: dflt, HasDefault: true, Validator: v, Mode: mode, Doc: doc}
}

func null(name string, t Type, v Validator, mode UpdateMode, doc string) Key {
	return Key{Name: name, Type: t, Validator: v, Mode: mode, Doc: doc}
}

func karst(k Key) Key    { k.Karst = true; return k }
func internal(k Key) Key { k.Internal = true; return k }
