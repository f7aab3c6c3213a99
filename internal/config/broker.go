package config

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Warning is something Load accepted but the operator should hear about.
type Warning struct {
	Key     string
	Message string
}

func (w Warning) String() string { return w.Message }

// Broker is an immutable snapshot of a broker's configuration: the static
// keys (file and overrides), the dynamic layers above them, and the
// effective typed values. Methods never modify it; share it freely.
type Broker struct {
	static     map[string]string // STATIC_BROKER_CONFIG, unknown keys included
	dynDefault map[string]string // DYNAMIC_DEFAULT_BROKER_CONFIG
	dynBroker  map[string]string // DYNAMIC_BROKER_CONFIG
	values     map[string]any    // effective value of every known key that is not null

	protocols       map[string]string
	listeners       []Listener
	advertised      []Listener
	controllerNames []string
	interBroker     string
	logDirs         []string
}

// Load reads a server.properties file (none when path is ""), then applies
// each "key=value" override in order; later settings win. Unknown keys are
// kept and reported as warnings, as Kafka logs them. An invalid value gives a
// *ConfigError naming the key, the value and the rule (the binary exits 2).
func Load(path string, overrides []string) (*Broker, []Warning, error) {
	static := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := static[k]; !ok {
			order = append(order, k)
		}
		static[k] = v
	}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		props, err := ParseProperties(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, p := range props {
			set(p.Key, p.Value)
		}
	}
	for _, o := range overrides {
		k, v, ok := strings.Cut(o, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("override %q is not key=value", o)
		}
		set(k, v)
	}
	return fromStatic(static, order)
}

// FromProperties builds a Broker from static key/value pairs, as if they had
// been read from a file.
func FromProperties(props map[string]string) (*Broker, []Warning, error) {
	order := slices.Sorted(maps.Keys(props))
	return fromStatic(maps.Clone(props), order)
}

// Default is the embedded default configuration (no file, no overrides).
func Default() *Broker {
	b, _, err := Load("", nil)
	if err != nil {
		panic("config: embedded default is invalid: " + err.Error())
	}
	return b
}

func fromStatic(static map[string]string, order []string) (*Broker, []Warning, error) {
	var warnings []Warning
	for _, k := range order {
		if !knownBrokerName(k) {
			warnings = append(warnings, Warning{Key: k, Message: fmt.Sprintf("The configuration '%s' was supplied but isn't a known config.", k)})
		}
	}
	b, more, err := build(static, map[string]string{}, map[string]string{})
	if err != nil {
		return nil, nil, err
	}
	return b, append(warnings, more...), nil
}

// knownBrokerName accepts table keys and listener-prefixed overrides
// (listener.name.<listener>.<key>).
func knownBrokerName(k string) bool {
	if _, ok := brokerKeys.byName[k]; ok {
		return true
	}
	return listenerPrefixed(k)
}

func listenerPrefixed(k string) bool {
	rest, ok := strings.CutPrefix(k, "listener.name.")
	if !ok {
		return false
	}
	name, sub, ok := strings.Cut(rest, ".")
	return ok && name != "" && sub != ""
}

// lookup finds a raw value in the layers, highest precedence first.
func lookup(name string, layers ...map[string]string) (string, bool) {
	for _, l := range layers {
		if v, ok := l[name]; ok {
			return v, true
		}
	}
	return "", false
}

// build parses all layers and checks the rules that span keys.
func build(static, dynDefault, dynBroker map[string]string) (*Broker, []Warning, error) {
	b := &Broker{static: static, dynDefault: dynDefault, dynBroker: dynBroker, values: map[string]any{}}
	for _, name := range brokerKeys.names {
		k := brokerKeys.byName[name]
		raw, ok := lookup(name, dynBroker, dynDefault, static)
		if !ok {
			if v, ok := brokerKeys.defaults[name]; ok {
				b.values[name] = v
			}
			continue
		}
		v, err := k.parse(raw)
		if err != nil {
			return nil, nil, err
		}
		b.values[name] = v
	}
	warnings, err := b.crossCheck()
	if err != nil {
		return nil, nil, err
	}
	return b, warnings, nil
}

func (b *Broker) isSet(name string) bool {
	_, ok := lookup(name, b.dynBroker, b.dynDefault, b.static)
	return ok
}

func (b *Broker) raw(name string) string {
	if v, ok := lookup(name, b.dynBroker, b.dynDefault, b.static); ok {
		return v
	}
	return brokerKeys.byName[name].Default
}

// StandardAuthorizer is the authorizer.class.name of Kafka's KRaft
// authorizer, the one Karst applies.
const StandardAuthorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"

// crossCheck applies Kafka's rules that involve more than one key and fills
// in the derived fields.
func (b *Broker) crossCheck() ([]Warning, error) {
	var warnings []Warning

	// node.id and broker.id are synonyms.
	nodeSet, brokerSet := b.isSet("node.id"), b.isSet("broker.id")
	switch {
	case nodeSet && brokerSet && b.Int("node.id") != b.Int("broker.id"):
		return nil, invalid("broker.id", b.raw("broker.id"), "You must set `node.id` to the same value as `broker.id`.")
	case brokerSet && !nodeSet:
		if b.Int("broker.id") < 0 {
			return nil, invalid("broker.id", b.raw("broker.id"), "Value must be at least 0")
		}
		b.values["node.id"] = b.values["broker.id"]
	}
	b.values["broker.id"] = b.values["node.id"]

	roles := b.List("process.roles")
	if err := listDistinct(false).check("process.roles", b.raw("process.roles"), roles); err != nil {
		return nil, err
	}
	if !slices.Contains(roles, "broker") {
		return nil, invalid("process.roles", b.raw("process.roles"), "Karst serves clients, so process.roles must include broker")
	}

	// Listeners.
	protocols, err := ParseSecurityProtocolMap(b.String("listener.security.protocol.map"))
	if err != nil {
		return nil, err
	}
	b.protocols = protocols
	if b.listeners, err = ParseListeners("listeners", b.String("listeners"), protocols); err != nil {
		return nil, err
	}
	if len(b.listeners) == 0 {
		return nil, invalid("listeners", b.raw("listeners"), "at least one listener is required")
	}
	if err := checkDistinctPorts("listeners", b.String("listeners"), b.listeners); err != nil {
		return nil, err
	}
	for _, n := range splitNames(b.String("controller.listener.names")) {
		b.controllerNames = append(b.controllerNames, strings.ToUpper(n))
	}
	for _, n := range b.controllerNames {
		if _, ok := protocols[n]; !ok {
			return nil, invalid("controller.listener.names", b.raw("controller.listener.names"), "No security protocol defined for listener "+n)
		}
	}
	listenerNames := map[string]bool{}
	for _, l := range b.listeners {
		listenerNames[l.Name] = true
	}
	advertised := b.listeners
	if b.values["advertised.listeners"] != nil {
		if advertised, err = ParseListeners("advertised.listeners", b.String("advertised.listeners"), protocols); err != nil {
			return nil, err
		}
		for _, l := range advertised {
			if !listenerNames[l.Name] {
				return nil, invalid("advertised.listeners", b.raw("advertised.listeners"),
					"advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found "+l.Name+". The valid options based on the current configuration are "+strings.Join(slices.Sorted(maps.Keys(listenerNames)), ","))
			}
		}
	}
	for _, l := range advertised {
		if slices.Contains(b.controllerNames, l.Name) {
			continue
		}
		if l.Host == "0.0.0.0" || l.Host == "::" {
			key := "advertised.listeners"
			if b.values["advertised.listeners"] == nil {
				key = "listeners"
			}
			return nil, invalid(key, b.raw(key), "advertised.listeners cannot use the nonroutable meta-address "+l.Host+". Use a routable IP address.")
		}
		b.advertised = append(b.advertised, l)
	}
	if len(b.advertised) == 0 {
		return nil, invalid("listeners", b.raw("listeners"), "there must be at least one advertised listener that is not a controller listener")
	}

	// Inter-broker listener.
	ibl, iblSet := b.values["inter.broker.listener.name"].(string)
	if iblSet && b.isSet("security.inter.broker.protocol") {
		return nil, invalid("inter.broker.listener.name", ibl, "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.")
	}
	if !iblSet {
		ibl = b.String("security.inter.broker.protocol")
	}
	b.interBroker = strings.ToUpper(ibl)
	if !slices.ContainsFunc(b.advertised, func(l Listener) bool { return l.Name == b.interBroker }) {
		var names []string
		for _, l := range b.advertised {
			names = append(names, l.Name)
		}
		rule := "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are " + strings.Join(names, ",")
		if iblSet {
			return nil, invalid("inter.broker.listener.name", ibl, rule)
		}
		// Kafka refuses to start here; a single Karst node never talks to
		// another broker, so it only warns.
		warnings = append(warnings, Warning{Key: "inter.broker.listener.name", Message: rule + " (Karst has no inter-broker traffic; continuing)"})
	}

	// Log directories.
	if dirs, ok := b.values["log.dirs"].([]string); ok {
		b.logDirs = dirs
	} else {
		b.logDirs = b.List("log.dir")
	}
	if len(b.logDirs) == 0 {
		return nil, invalid("log.dirs", b.raw("log.dirs"), "at least one log directory is required")
	}

	if q := b.Long("queued.max.request.bytes"); q > 0 && q < int64(b.Int("socket.request.max.bytes")) {
		return nil, invalid("queued.max.request.bytes", b.raw("queued.max.request.bytes"), "queued.max.request.bytes must be larger or equal to socket.request.max.bytes")
	}
	if err := b.checkConnectionQuotas(); err != nil {
		return nil, err
	}
	if a := strings.TrimSpace(b.String("authorizer.class.name")); a != "" && a != StandardAuthorizer {
		// Another authorizer's rules cannot be applied here, and serving
		// without any authorization instead would open the cluster.
		return nil, invalid("authorizer.class.name", a,
			"Karst serves only the authorizer "+StandardAuthorizer+" (or none, when empty); it cannot load the class "+a)
	}
	if c := strings.TrimSpace(b.raw("client.quota.callback.class")); c != "" {
		// A ClientQuotaCallback replaces how Kafka picks the quota of a
		// request (by principal, client id and the metadata's quotas).
		// Karst cannot run one, and quotas enforced otherwise than the
		// operator configured would pass silently: refuse to start.
		return nil, invalid("client.quota.callback.class", c,
			"Karst cannot load a ClientQuotaCallback class; it resolves quotas as Kafka's default callback does (user, client-id and their defaults, from ClientQuotaRecords). Remove the setting.")
	}
	if err := b.checkGroupRanges(); err != nil {
		return nil, err
	}
	if min, max := b.Long("log.cleaner.min.compaction.lag.ms"), b.Long("log.cleaner.max.compaction.lag.ms"); min > max {
		return nil, &ConfigError{Key: "log.cleaner.min.compaction.lag.ms", Value: b.raw("log.cleaner.min.compaction.lag.ms"), NoValue: true,
			Rule: fmt.Sprintf("conflict topic config setting min.compaction.lag.ms (%d) > max.compaction.lag.ms (%d)", min, max)}
	}
	return warnings, nil
}

// checkGroupRanges applies the group coordinator's ordering rules.
func (b *Broker) checkGroupRanges() error {
	type rule struct{ a, op, c string }
	rules := []rule{
		{"group.consumer.max.session.timeout.ms", ">=", "group.consumer.min.session.timeout.ms"},
		{"group.consumer.session.timeout.ms", ">=", "group.consumer.min.session.timeout.ms"},
		{"group.consumer.session.timeout.ms", "<=", "group.consumer.max.session.timeout.ms"},
		{"group.consumer.max.heartbeat.interval.ms", ">=", "group.consumer.min.heartbeat.interval.ms"},
		{"group.consumer.heartbeat.interval.ms", ">=", "group.consumer.min.heartbeat.interval.ms"},
		{"group.consumer.heartbeat.interval.ms", "<=", "group.consumer.max.heartbeat.interval.ms"},
		{"group.consumer.heartbeat.interval.ms", "<", "group.consumer.session.timeout.ms"},
		{"group.share.max.session.timeout.ms", ">=", "group.share.min.session.timeout.ms"},
		{"group.share.session.timeout.ms", ">=", "group.share.min.session.timeout.ms"},
		{"group.share.session.timeout.ms", "<=", "group.share.max.session.timeout.ms"},
		{"group.share.max.heartbeat.interval.ms", ">=", "group.share.min.heartbeat.interval.ms"},
		{"group.share.heartbeat.interval.ms", ">=", "group.share.min.heartbeat.interval.ms"},
		{"group.share.heartbeat.interval.ms", "<=", "group.share.max.heartbeat.interval.ms"},
		{"group.share.heartbeat.interval.ms", "<", "group.share.session.timeout.ms"},
	}
	words := map[string]string{">=": "greater than or equal to", "<=": "less than or equal to", "<": "less than"}
	for _, r := range rules {
		x, y := b.Int(r.a), b.Int(r.c)
		ok := (r.op == ">=" && x >= y) || (r.op == "<=" && x <= y) || (r.op == "<" && x < y)
		if !ok {
			return invalid(r.a, b.raw(r.a), r.a+" must be "+words[r.op]+" "+r.c)
		}
	}
	return nil
}

func splitNames(s string) []string {
	s = javaTrim(s)
	if s == "" {
		return nil
	}
	return commaWithBlanks.Split(s, -1)
}

// must returns the effective value of a known key of type t.
func (b *Broker) must(name string, t Type) any {
	k, ok := brokerKeys.byName[name]
	if !ok {
		panic("config: unknown broker key " + name)
	}
	if k.Type != t && !(t == TypeString && (k.Type == TypePassword || k.Type == TypeClass)) {
		panic(fmt.Sprintf("config: %s is %s, not %s", name, k.Type, t))
	}
	return b.values[name]
}

// Get returns the effective typed value of a broker key (bool, string,
// int32, int16, int64, float64 or []string), or false when it is null.
func (b *Broker) Get(name string) (any, bool) {
	v, ok := b.values[name]
	return cloneValue(v), ok
}

// cloneValue copies list values, which are otherwise shared between
// snapshots and the key tables.
func cloneValue(v any) any {
	if l, ok := v.([]string); ok {
		return slices.Clone(l)
	}
	return v
}

// IsSet reports whether a key was configured in any layer (not defaulted).
func (b *Broker) IsSet(name string) bool { return b.isSet(name) }

// Typed accessors; they panic on an unknown key or the wrong type (a
// programming error), and return the zero value for a null key.

func (b *Broker) Bool(name string) bool      { v, _ := b.must(name, TypeBoolean).(bool); return v }
func (b *Broker) Int(name string) int32      { v, _ := b.must(name, TypeInt).(int32); return v }
func (b *Broker) Short(name string) int16    { v, _ := b.must(name, TypeShort).(int16); return v }
func (b *Broker) Long(name string) int64     { v, _ := b.must(name, TypeLong).(int64); return v }
func (b *Broker) Double(name string) float64 { v, _ := b.must(name, TypeDouble).(float64); return v }
func (b *Broker) String(name string) string  { v, _ := b.must(name, TypeString).(string); return v }
func (b *Broker) List(name string) []string {
	v, _ := b.must(name, TypeList).([]string)
	return slices.Clone(v)
}

// NodeID is node.id (broker.id when only that is set).
func (b *Broker) NodeID() int32 { return b.Int("node.id") }

// ClusterID is cluster.id; empty means "use meta.properties or generate".
func (b *Broker) ClusterID() string { return b.String("cluster.id") }

// Listeners are the listeners to bind, controller listeners included.
func (b *Broker) Listeners() []Listener { return slices.Clone(b.listeners) }

// AdvertisedListeners are the endpoints published to clients:
// advertised.listeners, or listeners when unset, without controller
// listeners. A Host of "" means the bind-all listener's host was not given;
// publish AdvertisedHost() (or a policy of the caller's) instead. Port 0
// means the port the matching listener bound.
func (b *Broker) AdvertisedListeners() []Listener { return slices.Clone(b.advertised) }

// ControllerListenerNames are controller.listener.names, upper-cased.
func (b *Broker) ControllerListenerNames() []string { return slices.Clone(b.controllerNames) }

// InterBrokerListenerName is inter.broker.listener.name, or the listener
// named after security.inter.broker.protocol.
func (b *Broker) InterBrokerListenerName() string { return b.interBroker }

// SecurityProtocolMap is the parsed listener.security.protocol.map.
func (b *Broker) SecurityProtocolMap() map[string]string { return maps.Clone(b.protocols) }

// LogDirs are log.dirs, or log.dir when log.dirs is unset.
func (b *Broker) LogDirs() []string { return slices.Clone(b.logDirs) }

// MetadataLogDir is metadata.log.dir, or the first log dir.
func (b *Broker) MetadataLogDir() string {
	if d := b.String("metadata.log.dir"); d != "" {
		return d
	}
	return b.logDirs[0]
}

// ListenerOverride returns listener.name.<listener>.<key> if set (Kafka's
// per-listener override of security and connection keys).
func (b *Broker) ListenerOverride(listener, key string) (string, bool) {
	return lookup("listener.name."+strings.ToLower(listener)+"."+key, b.dynBroker, b.dynDefault, b.static)
}

// Static returns a copy of the static keys as configured, unknown keys
// included.
func (b *Broker) Static() map[string]string { return maps.Clone(b.static) }

// DynamicOverrides returns copies of the cluster-default and per-broker
// dynamic layers.
func (b *Broker) DynamicOverrides() (clusterDefault, perBroker map[string]string) {
	return maps.Clone(b.dynDefault), maps.Clone(b.dynBroker)
}

// Advertise returns the advertised listeners ready to publish: an empty or
// wildcard host becomes hostForEmpty (AdvertisedHost() is Kafka's choice),
// and port 0 becomes the port boundPort reports for that listener name.
func (b *Broker) Advertise(hostForEmpty string, boundPort func(listener string) (int, bool)) []Listener {
	out := b.AdvertisedListeners()
	for i, l := range out {
		if l.Host == "" {
			out[i].Host = hostForEmpty
		}
		if l.Port == 0 && boundPort != nil {
			if p, ok := boundPort(l.Name); ok {
				out[i].Port = p
			}
		}
	}
	return out
}
