package quota

import (
	"errors"
	"math"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
)

// Kind is a quota type, as Kafka's QuotaType; its String is Kafka's
// metric group.
type Kind int

const (
	Produce Kind = iota
	Fetch
	Request
	ControllerMutation
	numKinds
)

func (k Kind) String() string {
	return [...]string{"Produce", "Fetch", "Request", "ControllerMutation"}[k]
}

func (k Kind) key() string {
	return [...]string{ProducerByteRate, ConsumerByteRate, RequestPercentage, ControllerMutationRate}[k]
}

// inactiveSensorExpiry is ClientQuotaManager.InactiveSensorExpirationTimeSeconds.
const inactiveSensorExpiry = time.Hour

// sweepInterval is how often expired sensors are looked for (Kafka's
// metrics reaper runs every 30 s).
const sweepInterval = 30 * time.Second

// throttleWindow is the window of the throttle-time average: Kafka's
// metrics defaults (metrics.num.samples=2, metrics.sample.window.ms=30000).
var throttleWindow = Window{Num: 2, SizeMs: 30000}

// nanosToPercentage is ClientRequestQuotaManager.NanosToPercentagePerSecond.
const nanosToPercentage = 100.0 / 1e9

// Config shapes a Manager.
type Config struct {
	// Window is quota.window.num and quota.window.size.seconds (11 and 1
	// when zero), for the produce, fetch and request quotas.
	Window Window
	// ControllerWindow is controller.quota.window.num and
	// controller.quota.window.size.seconds (11 and 1 when zero).
	ControllerWindow Window
	// Image returns the current cluster metadata, whose ClientQuotas are
	// the quotas in force; nil leaves them to SetQuotas.
	Image func() *metadata.Image
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Client is who a request comes from: its principal's name and the client
// id of its header.
type Client struct{ User, ClientID string }

// Manager is the broker's client quota managers, one per Kind.
type Manager struct {
	cfg   Config
	kinds [numKinds]*manager

	mu        sync.Mutex
	lastImage atomic.Pointer[metadata.Image]
	// ips are the connection_creation_rate quotas of ip entities.
	ips ipRates
	// hosts are the addresses of ip entities named by host names; under mu.
	hosts ipHosts
}

// manager is one quota type's ClientQuotaManager.
type manager struct {
	kind   Kind
	window Window
	// maxThrottleMs caps throttle times (the request quota caps them at
	// one window); 0 means no cap.
	maxThrottleMs int64
	limits        atomic.Pointer[limits]

	mu        sync.Mutex
	sensors   map[Tags]*sensor
	lastSweep int64
	throttled atomic.Int64
}

// sensor measures one entity of one quota type.
type sensor struct {
	mu         sync.Mutex
	rate       rate
	bucket     tokenBucket
	throttle   avg
	lastRecord int64
}

// NewManager returns the quota managers.
func NewManager(cfg Config) *Manager {
	if cfg.Window.Num <= 0 {
		cfg.Window.Num = 11
	}
	if cfg.Window.SizeMs <= 0 {
		cfg.Window.SizeMs = 1000
	}
	if cfg.ControllerWindow.Num <= 0 {
		cfg.ControllerWindow.Num = 11
	}
	if cfg.ControllerWindow.SizeMs <= 0 {
		cfg.ControllerWindow.SizeMs = 1000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Manager{cfg: cfg, ips: ipRates{sensors: map[netip.Addr]*sensor{}},
		hosts: ipHosts{lookup: lookupHost, resolved: map[string]netip.Addr{}, pending: map[string]bool{}}}
	m.ips.limits.Store(ipLimitsOf(nil, nil))
	for k := range numKinds {
		w := cfg.Window
		if k == ControllerMutation {
			w = cfg.ControllerWindow
		}
		km := &manager{kind: k, window: w, sensors: map[Tags]*sensor{}}
		if k == Request {
			km.maxThrottleMs = w.SizeMs
		}
		km.limits.Store(&limits{values: map[entity]float64{}})
		m.kinds[k] = km
	}
	return m
}

// SetQuotas replaces the quotas in force.
func (m *Manager) SetQuotas(quotas []metadata.Quotas) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setQuotasLocked(quotas)
}

func (m *Manager) setQuotasLocked(quotas []metadata.Quotas) {
	for _, km := range m.kinds {
		km.limits.Store(limitsOf(quotas, km.kind.key(), km.limits.Load().enabled))
	}
	m.hosts.quotas = quotas
	m.ips.limits.Store(ipLimitsOf(quotas, m.resolveLocked))
}

// refresh picks up the quotas of a new metadata image.
func (m *Manager) refresh() {
	if m.cfg.Image == nil {
		return
	}
	img := m.cfg.Image()
	if img == nil || m.lastImage.Load() == img {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lastImage.Load() != img {
		m.setQuotasLocked(img.ClientQuotas())
		m.lastImage.Store(img)
	}
}

func (m *Manager) nowMs() int64 { return m.cfg.Now().UnixMilli() }

// kind returns k's manager with the current quotas, or nil when no quota
// of that type was ever set (Kafka then records nothing).
func (m *Manager) kind(k Kind) *manager {
	if m == nil {
		return nil
	}
	m.refresh()
	km := m.kinds[k]
	if km.limits.Load().enabled == 0 {
		return nil
	}
	return km
}

// sensorFor returns c's sensor and the quota bound over it (+Inf when the
// entity has none).
func (km *manager) sensorFor(c Client, now int64) (*sensor, Tags, float64) {
	l := km.limits.Load()
	t := l.tags(c.User, c.ClientID)
	bound, ok := l.limit(t)
	if !ok {
		bound = math.Inf(1)
	}
	km.mu.Lock()
	defer km.mu.Unlock()
	return sensorOf(km.sensors, t, &km.lastSweep, now), t, bound
}

// sensorOf returns key's sensor in sensors, creating it, after dropping
// the sensors idle for inactiveSensorExpiry when sweepInterval has passed
// since *lastSweep. The caller holds the lock of sensors.
func sensorOf[K comparable](sensors map[K]*sensor, key K, lastSweep *int64, now int64) *sensor {
	if now-*lastSweep >= sweepInterval.Milliseconds() {
		*lastSweep = now
		for k, s := range sensors {
			s.mu.Lock()
			idle := now-s.lastRecord >= inactiveSensorExpiry.Milliseconds()
			s.mu.Unlock()
			if idle {
				delete(sensors, k)
			}
		}
	}
	s := sensors[key]
	if s == nil {
		s = &sensor{lastRecord: now}
		sensors[key] = s
	}
	return s
}

// recordAndThrottle records value and returns the throttle time its
// violation earns (ClientQuotaManager.recordAndGetThrottleTimeMs).
func (km *manager) recordAndThrottle(c Client, value float64, now int64) time.Duration {
	s, _, bound := km.sensorFor(c, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastRecord = now
	s.rate.record(km.window, value, now)
	if math.IsInf(bound, 1) {
		return 0
	}
	observed := s.rate.measure(km.window, now)
	if observed <= bound {
		return 0
	}
	ms := throttleMs(observed, bound, s.rate.windowSize(km.window, now), km.maxThrottleMs)
	return time.Duration(ms) * time.Millisecond
}

// RecordProduce records a produce request of size bytes from c and
// returns its throttle time under producer_byte_rate.
func (m *Manager) RecordProduce(c Client, bytes int) time.Duration {
	km := m.kind(Produce)
	if km == nil {
		return 0
	}
	return km.recordAndThrottle(c, float64(bytes), m.nowMs())
}

// RecordFetch records a fetch response of size bytes to c and returns its
// throttle time under consumer_byte_rate.
func (m *Manager) RecordFetch(c Client, bytes int) time.Duration {
	km := m.kind(Fetch)
	if km == nil {
		return 0
	}
	return km.recordAndThrottle(c, float64(bytes), m.nowMs())
}

// UnrecordFetch takes back a fetch response that will not be sent, as
// Kafka's unrecordQuotaSensor does when a throttled fetch is answered
// empty.
func (m *Manager) UnrecordFetch(c Client, bytes int) {
	km := m.kind(Fetch)
	if km == nil {
		return
	}
	now := m.nowMs()
	s, _, _ := km.sensorFor(c, now)
	s.mu.Lock()
	s.rate.record(km.window, -float64(bytes), now)
	s.mu.Unlock()
}

// FetchMaxBytes is the most a fetch may return to c in one quota window
// (getMaxValueInQuotaWindow: the bound × (quota.window.num - 1) ×
// window seconds); ok is false when c has no consumer quota.
func (m *Manager) FetchMaxBytes(c Client) (maxBytes int64, ok bool) {
	km := m.kind(Fetch)
	if km == nil {
		return 0, false
	}
	l := km.limits.Load()
	bound, ok := l.limit(l.tags(c.User, c.ClientID))
	if !ok {
		return 0, false
	}
	v := bound * float64(km.window.Num-1) * float64(km.window.SizeMs) / 1000
	if v >= math.MaxInt32 {
		return math.MaxInt32, true
	}
	return int64(v), true
}

// RecordRequestTime records d of request handler time for c and returns
// its throttle time under request_percentage (capped at one window, as
// ClientRequestQuotaManager caps it).
func (m *Manager) RecordRequestTime(c Client, d time.Duration) time.Duration {
	km := m.kind(Request)
	if km == nil {
		return 0
	}
	return km.recordAndThrottle(c, float64(d.Nanoseconds())*nanosToPercentage, m.nowMs())
}

// Throttled records that c's connection is muted for d for kind's quota:
// the throttle-time average and the count of throttled responses.
func (m *Manager) Throttled(k Kind, c Client, d time.Duration) {
	if m == nil || d <= 0 {
		return
	}
	km := m.kinds[k]
	now := m.nowMs()
	s, _, _ := km.sensorFor(c, now)
	s.mu.Lock()
	s.throttle.record(throttleWindow, float64(d.Milliseconds()), now)
	s.lastRecord = now
	s.mu.Unlock()
	km.throttled.Add(1)
}

// ErrThrottled is a strict controller mutation quota's refusal: Kafka's
// ThrottlingQuotaExceededException, answered THROTTLING_QUOTA_EXCEEDED
// with ThrottledMessage.
var ErrThrottled = errors.New("throttling quota exceeded")

// ThrottledMessage is Kafka's message for THROTTLING_QUOTA_EXCEEDED.
const ThrottledMessage = "The throttling quota has been exceeded."

// MutationQuota is the controller mutation quota of one request (Kafka's
// ControllerMutationQuota): strict ones refuse a mutation once the bucket
// is empty (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+),
// permissive ones accept it and throttle.
type MutationQuota struct {
	m        *Manager
	km       *manager
	s        *sensor
	bound    float64
	strict   bool
	throttle int64 // ms
	at       int64 // when throttle was computed
}

// MutationQuota returns c's quota for one request; nil (which accepts
// everything) when no controller mutation quota was ever set.
func (m *Manager) MutationQuota(c Client, strict bool) *MutationQuota {
	km := m.kind(ControllerMutation)
	if km == nil {
		return nil
	}
	now := m.nowMs()
	s, _, bound := km.sensorFor(c, now)
	return &MutationQuota{m: m, km: km, s: s, bound: bound, strict: strict}
}

// Enabled reports whether mutations are measured at all.
func (q *MutationQuota) Enabled() bool { return q != nil }

// Record takes permits (partitions created or deleted) from the bucket. A
// strict quota whose bucket is already below zero refuses them with
// ErrThrottled and records nothing.
func (q *MutationQuota) Record(permits int) error {
	if q == nil {
		return nil
	}
	now := q.m.nowMs()
	s, w := q.s, q.km.window
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastRecord = now
	if math.IsInf(q.bound, 1) {
		s.rate.record(w, float64(permits), now)
		return nil
	}
	if q.strict {
		if tokens := s.bucket.measure(w, q.bound, now); tokens < 0 {
			q.violated(tokens, now)
			return ErrThrottled
		}
	}
	s.rate.record(w, float64(permits), now)
	s.bucket.record(w, q.bound, float64(permits), now)
	if tokens := s.bucket.measure(w, q.bound, now); tokens < 0 && !q.strict {
		q.violated(tokens, now)
	}
	return nil
}

// violated is ControllerMutationQuotaManager.throttleTimeMs: the time the
// bucket needs to climb back to zero.
func (q *MutationQuota) violated(tokens float64, now int64) {
	q.throttle = int64(math.Round(-tokens / q.bound * 1000))
	q.at = now
}

// ThrottleTime is the throttle time of the last violation, less the time
// since it was computed.
func (q *MutationQuota) ThrottleTime() time.Duration {
	if q == nil || q.throttle == 0 {
		return 0
	}
	return time.Duration(max(0, q.throttle-(q.m.nowMs()-q.at))) * time.Millisecond
}

// ClientOf is the client a request counts against: the principal's name
// and the header's client id (a null client id counts as "").
func ClientOf(principalName string, clientID *string) Client {
	c := Client{User: principalName}
	if clientID != nil {
		c.ClientID = *clientID
	}
	return c
}
