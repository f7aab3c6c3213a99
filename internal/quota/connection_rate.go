package quota

import (
	"context"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
)

// ConnectionCreationRate is the quota key of ip entities (KIP-612): new
// connections per second from one address.
const ConnectionCreationRate = "connection_creation_rate"

// unlimitedConnectionRate is QuotaConfig.IP_CONNECTION_RATE_DEFAULT
// (Int.MaxValue): an address whose rate is this is not measured at all.
const unlimitedConnectionRate = math.MaxInt32

// ipLimits are the connection_creation_rate quotas, as ConnectionQuotas
// keeps them: overrides by address and the default ip entity's rate.
type ipLimits struct {
	perIP map[netip.Addr]int
	def   int
}

// ipLimitsOf picks the ip entities' connection_creation_rate out of the
// stored quotas. Kafka applies values as ints (quotaValue.toInt). An ip
// entity named by a host name rather than an address applies to the
// address resolve gives for it (Kafka's InetAddress.getByName when the
// quota is applied); one resolve does not know (yet) is left out.
func ipLimitsOf(quotas []metadata.Quotas, resolve func(host string) (netip.Addr, bool)) *ipLimits {
	l := &ipLimits{perIP: map[netip.Addr]int{}, def: unlimitedConnectionRate}
	for _, q := range quotas {
		v, ok := q.Values[ConnectionCreationRate]
		if !ok || len(q.Entity) != 1 || q.Entity[0].Type != metadata.QuotaEntityIP {
			continue
		}
		rate := int(min(v, unlimitedConnectionRate))
		if q.Entity[0].Name == nil {
			l.def = rate
			continue
		}
		if a, err := netip.ParseAddr(*q.Entity[0].Name); err == nil {
			l.perIP[a.Unmap()] = rate
		} else if a, ok := resolve(*q.Entity[0].Name); ok {
			l.perIP[a.Unmap()] = rate
		}
	}
	return l
}

// hostLookupTimeout bounds the resolution of an ip entity's host name.
const hostLookupTimeout = 5 * time.Second

// ipHosts are the addresses of the ip entities named by host names. A name
// is resolved once, in the background, the first time a quota names it
// (Kafka resolves it when it applies the quota record, on its metadata
// thread; here the lookup must not hold up the requests and accepts that
// pick up a new image), and the ip limits are built again when it is
// known. A name that does not resolve stays without quota, as Kafka logs
// the failure and applies nothing.
type ipHosts struct {
	lookup   func(ctx context.Context, host string) (netip.Addr, error)
	resolved map[string]netip.Addr
	pending  map[string]bool
	quotas   []metadata.Quotas // the quotas in force, to build the limits again from
}

// lookupHost resolves host as InetAddress.getByName does by default: the
// first IPv4 address (java.net.preferIPv6Addresses is false), else the
// first address.
func lookupHost(ctx context.Context, host string) (netip.Addr, error) {
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if a.Unmap().Is4() {
			return a.Unmap(), nil
		}
	}
	if len(addrs) == 0 {
		return netip.Addr{}, &net.DNSError{Err: "no addresses", Name: host}
	}
	return addrs[0], nil
}

// resolveLocked is the address of host if known; else it starts its
// lookup. The caller holds m.mu.
func (m *Manager) resolveLocked(host string) (netip.Addr, bool) {
	h := &m.hosts
	if a, ok := h.resolved[host]; ok {
		return a, true
	}
	if !h.pending[host] {
		h.pending[host] = true
		go m.resolveHost(host)
	}
	return netip.Addr{}, false
}

func (m *Manager) resolveHost(host string) {
	ctx, cancel := context.WithTimeout(context.Background(), hostLookupTimeout)
	defer cancel()
	a, err := m.hosts.lookup(ctx, host)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		return // pending stays set: the name is not looked up again
	}
	m.hosts.resolved[host] = a
	m.ips.limits.Store(ipLimitsOf(m.hosts.quotas, m.resolveLocked))
}

// rateFor is ConnectionQuotas.connectionRateForIp: the address's override,
// else the default.
func (l *ipLimits) rateFor(a netip.Addr) int {
	if r, ok := l.perIP[a]; ok {
		return r
	}
	return l.def
}

// ipRates are the per-address connection rate sensors.
type ipRates struct {
	limits atomic.Pointer[ipLimits]

	mu        sync.Mutex
	sensors   map[netip.Addr]*sensor
	lastSweep int64
	throttled atomic.Int64
}

func (r *ipRates) sensor(a netip.Addr, now int64) *sensor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return sensorOf(r.sensors, a, &r.lastSweep, now)
}

// ConnectionRate is the connection_creation_rate in force for addr, and
// whether one is (Kafka measures an address only when its rate is not
// Int.MaxValue).
func (m *Manager) ConnectionRate(addr netip.Addr) (int, bool) {
	if m == nil {
		return 0, false
	}
	m.refresh()
	r := m.ips.limits.Load().rateFor(addr.Unmap())
	return r, r != unlimitedConnectionRate
}

// RecordConnection records a new connection from addr against its
// connection_creation_rate and returns how long it is throttled for
// (ConnectionQuotas.recordIpConnectionMaybeThrottle): over the rate, the
// connection is taken back out of the measure and the delay that brings
// the rate back to the quota is returned, at most one quota window
// (quota.window.size.seconds). The caller accepts such a connection and
// closes it once the delay has passed.
func (m *Manager) RecordConnection(addr netip.Addr) time.Duration {
	bound, ok := m.ConnectionRate(addr)
	if !ok {
		return 0
	}
	addr = addr.Unmap()
	now, w := m.nowMs(), m.cfg.Window
	s := m.ips.sensor(addr, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastRecord = now
	s.rate.record(w, 1, now)
	observed := s.rate.measure(w, now)
	if observed <= float64(bound) {
		return 0
	}
	ms := throttleMs(observed, float64(bound), s.rate.windowSize(w, now), w.SizeMs)
	s.rate.record(w, -1, now)
	s.throttle.record(throttleWindow, float64(ms), now)
	m.ips.throttled.Add(1)
	return time.Duration(ms) * time.Millisecond
}

// ConnectionsThrottled is how many connections RecordConnection has
// throttled.
func (m *Manager) ConnectionsThrottled() int64 {
	if m == nil {
		return 0
	}
	return m.ips.throttled.Load()
}

// throttleMs is QuotaUtils.throttleTime, bounded by maxMs when maxMs > 0
// (boundedThrottleTime): the delay X that brings the observed rate O over
// the window W back to the bound T, O·W/(W+X) = T. A bound of 0 asks for
// an infinite delay, which only the cap bounds (or, without one, the
// longest time.Duration).
func throttleMs(observed, bound float64, windowMs, maxMs int64) int64 {
	ms := math.Round((observed - bound) / bound * float64(windowMs))
	if maxMs > 0 && ms > float64(maxMs) {
		return maxMs
	}
	if longest := float64(math.MaxInt64 / int64(time.Millisecond)); ms > longest {
		return int64(longest)
	}
	return int64(ms)
}

// CreationRate is a connection-creation-rate sensor of a listener or of
// the broker (KIP-612's max.connection.creation.rate): unlike an ip
// entity's, every connection counts in it, throttled or not, as Kafka's
// Sensor.record records the value before it checks the quota.
type CreationRate struct {
	mu   sync.Mutex
	w    Window
	now  func() time.Time
	rate rate
}

// NewCreationRate returns a sensor over w (quota.window.num windows of
// quota.window.size.seconds); now is time.Now when nil.
func NewCreationRate(w Window, now func() time.Time) *CreationRate {
	if w.Num <= 0 {
		w.Num = 11
	}
	if w.SizeMs <= 0 {
		w.SizeMs = 1000
	}
	if now == nil {
		now = time.Now
	}
	return &CreationRate{w: w, now: now}
}

// Record counts a new connection and returns how long the acceptor waits
// before taking it (ConnectionQuotas.recordAndGetThrottleTimeMs): the
// delay that brings the rate back to bound, at most one window.
func (c *CreationRate) Record(bound int) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now().UnixMilli()
	c.rate.record(c.w, 1, now)
	observed := c.rate.measure(c.w, now)
	if observed <= float64(bound) {
		return 0
	}
	return time.Duration(throttleMs(observed, float64(bound), c.rate.windowSize(c.w, now), c.w.SizeMs)) * time.Millisecond
}

// Measure is the rate now, in connections per second (Kafka's
// connection-accept-rate).
func (c *CreationRate) Measure() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rate.measure(c.w, c.now().UnixMilli())
}

// Window is the quotas' window (quota.window.num and
// quota.window.size.seconds).
func (m *Manager) Window() Window {
	if m == nil {
		return Window{Num: 11, SizeMs: 1000}
	}
	return m.cfg.Window
}
