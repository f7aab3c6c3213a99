package config

// ListenerValue is a key as one listener sees it: its
// listener.name.<listener>.<key> override, else the broker's dynamic or
// static value, else the key's default; ok is false for a key that is
// neither set nor known (a mechanism's own keys, such as
// plain.sasl.jaas.config, when absent).
func (b *Broker) ListenerValue(listener, key string) (value string, ok bool) {
	if v, ok := b.ListenerOverride(listener, key); ok {
		return v, true
	}
	if v, ok := lookup(key, b.dynBroker, b.dynDefault, b.static); ok {
		return v, true
	}
	if k, known := brokerKeys.byName[key]; known {
		return k.Default, true
	}
	return "", false
}

// ListenerSetting is ListenerValue without the ok.
func (b *Broker) ListenerSetting(listener, key string) string {
	v, _ := b.ListenerValue(listener, key)
	return v
}
