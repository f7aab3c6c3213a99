package config

// ListenerSetting is a key's raw value for one listener, as Kafka resolves
// its listener-scoped security keys (ssl.*, sasl.*): the
// listener.name.<listener>.<key> form when set, else the key itself, else
// its default ("" for a key whose default is null).
func (b *Broker) ListenerSetting(listener, key string) string {
	if v, ok := b.ListenerOverride(listener, key); ok {
		return v
	}
	return b.raw(key)
}
