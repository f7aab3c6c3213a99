package config

import (
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Listener is one NAME://host:port endpoint.
type Listener struct {
	// Name is the listener name, upper-cased as Kafka normalises it.
	Name string
	// Host is empty for "all interfaces" (listeners) or "not given"
	// (advertised listeners, see AdvertisedHost).
	Host string
	// Port 0 means a port the kernel picks; the server reports the bound one.
	Port int
	// SecurityProtocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
	SecurityProtocol string
}

// Addr is the host:port to bind or dial.
func (l Listener) Addr() string { return net.JoinHostPort(l.Host, strconv.Itoa(l.Port)) }

func (l Listener) String() string {
	host := l.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return l.Name + "://" + host + ":" + strconv.Itoa(l.Port)
}

// endpointPattern is the shape Kafka accepts for one listener entry.
var endpointPattern = regexp.MustCompile(`^(.*)://\[?([0-9a-zA-Z\-%._:]*?)\]?:(-?[0-9]+)$`)

// ParseSecurityProtocolMap parses listener.security.protocol.map
// ("NAME:PROTOCOL,..."); names are upper-cased.
func ParseSecurityProtocolMap(spec string) (map[string]string, error) {
	const key = "listener.security.protocol.map"
	out := map[string]string{}
	spec = javaTrim(spec)
	if spec == "" {
		return out, nil
	}
	for _, entry := range commaWithBlanks.Split(spec, -1) {
		name, proto, ok := strings.Cut(entry, ":")
		name, proto = strings.ToUpper(javaTrim(name)), strings.ToUpper(javaTrim(proto))
		if !ok || name == "" {
			return nil, invalid(key, spec, "entries must be LISTENER_NAME:SECURITY_PROTOCOL, got '"+entry+"'")
		}
		if !slices.Contains(securityProtocols, proto) {
			return nil, invalid(key, spec, "unknown security protocol '"+proto+"' for listener "+name+"; must be one of "+strings.Join(securityProtocols, ", "))
		}
		if _, dup := out[name]; dup {
			return nil, invalid(key, spec, "listener "+name+" is mapped twice")
		}
		out[name] = proto
	}
	return out, nil
}

// ParseListeners parses a listeners or advertised.listeners value. Names
// must be unique and present in protocols (the parsed security protocol map).
func ParseListeners(key, spec string, protocols map[string]string) ([]Listener, error) {
	spec = javaTrim(spec)
	var out []Listener
	if spec == "" {
		return out, nil
	}
	seen := map[string]bool{}
	for _, entry := range commaWithBlanks.Split(spec, -1) {
		m := endpointPattern.FindStringSubmatch(entry)
		if m == nil {
			return nil, invalid(key, spec, "Unable to parse "+entry+" to a broker endpoint")
		}
		name := strings.ToUpper(m[1])
		port, err := strconv.Atoi(m[3])
		if err != nil || port < 0 || port > 65535 {
			return nil, invalid(key, spec, "port of "+entry+" must be in [0, 65535]")
		}
		proto, ok := protocols[name]
		if !ok {
			return nil, invalid(key, spec, "No security protocol defined for listener "+name)
		}
		if seen[name] {
			return nil, invalid(key, spec, "Each listener must have a different name, listeners: "+spec)
		}
		seen[name] = true
		out = append(out, Listener{Name: name, Host: m[2], Port: port, SecurityProtocol: proto})
	}
	return out, nil
}

// checkDistinctPorts applies Kafka's rule to listeners: two listeners may
// share a non-zero port only if one binds an IPv4 and the other an IPv6
// address.
func checkDistinctPorts(key, spec string, ls []Listener) error {
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			a, b := ls[i], ls[j]
			if a.Port == 0 || a.Port != b.Port {
				continue
			}
			if isIPv4(a.Host) && isIPv6(b.Host) || isIPv6(a.Host) && isIPv4(b.Host) {
				continue
			}
			return invalid(key, spec, "Each listener must have a different port unless exactly one listener has an IPv4 address and the other IPv6 address, listeners: "+spec)
		}
	}
	return nil
}

func isIPv4(h string) bool { ip := net.ParseIP(h); return ip != nil && ip.To4() != nil }
func isIPv6(h string) bool { ip := net.ParseIP(h); return ip != nil && ip.To4() == nil }

// AdvertisedHost is what Kafka advertises for a listener with no host: this
// machine's host name when it resolves, else 127.0.0.1.
func AdvertisedHost() string {
	name, err := osHostname()
	if err == nil && name != "" {
		if addrs, err := net.LookupHost(name); err == nil && len(addrs) > 0 {
			return name
		}
	}
	return "127.0.0.1"
}

// osHostname is replaceable in tests.
var osHostname = os.Hostname
