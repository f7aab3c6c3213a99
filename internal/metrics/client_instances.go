package metrics

// Client instances of KIP-714 telemetry, as Kafka's ClientMetricsManager
// keeps them: each instance's subscription (the client-metrics
// subscriptions whose match patterns fit it, merged), its subscription id,
// the times of its last GetTelemetrySubscriptions and PushTelemetry (which
// throttle it to its push interval) and whether it said it is terminating.

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/config"
)

// Telemetry defaults, as Kafka's.
const (
	// TelemetryMaxBytes is telemetry.max.bytes: the largest push accepted.
	TelemetryMaxBytes = 1 << 20
	// instanceCacheExpiry is how long an instance outlives its last
	// request at least (Kafka: max(60 s, 3 push intervals)).
	instanceCacheExpiry = 60 * time.Second
)

// AcceptedCompressionTypes are the codecs a client may compress its
// pushes with, in Kafka's order: zstd, lz4, gzip, snappy.
var AcceptedCompressionTypes = []int8{4, 3, 1, 2}

// allMetrics is the subscription to every metric.
const allMetrics = "*"

// ClientAttributes are what a subscription's match patterns test.
type ClientAttributes struct {
	InstanceID, ClientID, SoftwareName, SoftwareVersion, SourceAddress, SourcePort string
}

func (a ClientAttributes) byParam() map[string]string {
	return map[string]string{
		"client_instance_id": a.InstanceID, "client_id": a.ClientID,
		"client_software_name": a.SoftwareName, "client_software_version": a.SoftwareVersion,
		"client_source_address": a.SourceAddress, "client_source_port": a.SourcePort,
	}
}

// ClientSubscription is what an instance is asked to push.
type ClientSubscription struct {
	ID         int32
	Metrics    []string
	IntervalMs int32
}

// clientInstance is one client's state.
type clientInstance struct {
	sub         ClientSubscription
	lastGet     time.Time
	lastPush    time.Time
	terminating bool
	expires     time.Time
}

// ClientInstances is the broker's table of telemetry clients.
type ClientInstances struct {
	mu        sync.Mutex
	instances map[[16]byte]*clientInstance
	now       func() time.Time
}

// NewClientInstances returns an empty table on the given clock (nil: the
// wall clock).
func NewClientInstances(now func() time.Time) *ClientInstances {
	if now == nil {
		now = time.Now
	}
	return &ClientInstances{instances: map[[16]byte]*clientInstance{}, now: now}
}

// Subscribe merges the subscriptions that match the client, as
// ClientMetricsManager.createClientInstance does: the union of their
// metrics ("*" alone when any asks for all), the shortest interval.
func Subscribe(instanceID [16]byte, attrs ClientAttributes, subs []config.ClientMetricsSubscription) ClientSubscription {
	interval := int32(config.ClientMetricsDefaultIntervalMs)
	var metrics []string
	all := false
	values := attrs.byParam()
	for _, s := range subs {
		if !matches(s, values) {
			continue
		}
		for _, m := range s.Metrics {
			all = all || m == allMetrics
			if !slices.Contains(metrics, m) {
				metrics = append(metrics, m)
			}
		}
		interval = min(interval, s.IntervalMs)
	}
	if all {
		metrics = []string{allMetrics}
	}
	slices.Sort(metrics)
	return ClientSubscription{ID: subscriptionID(metrics, interval, instanceID), Metrics: metrics, IntervalMs: interval}
}

func matches(s config.ClientMetricsSubscription, values map[string]string) bool {
	for param, re := range s.Match {
		v, ok := values[param]
		if !ok || !fullMatch(re.FindStringIndex(v), v) {
			return false
		}
	}
	return true
}

// fullMatch is Java's Matcher.matches: the pattern must cover the value.
func fullMatch(loc []int, v string) bool { return loc != nil && loc[0] == 0 && loc[1] == len(v) }

// subscriptionID is ClientMetricsManager.computeSubscriptionId: CRC-32C of
// the metric set and interval, XOR the instance id's Java hash code.
func subscriptionID(metrics []string, intervalMs int32, id [16]byte) int32 {
	text := "[" + strings.Join(metrics, ", ") + "]" + fmt.Sprint(intervalMs)
	crc := crc32.Checksum([]byte(text), crc32.MakeTable(crc32.Castagnoli))
	h := binary.BigEndian.Uint64(id[:8]) ^ binary.BigEndian.Uint64(id[8:])
	return int32(crc) ^ int32(uint32(h>>32)^uint32(h))
}

// Errors of the telemetry requests, as Kafka's codes.
const (
	ErrThrottled           = 89  // THROTTLING_QUOTA_EXCEEDED
	ErrInvalidRequest      = 42  // INVALID_REQUEST
	ErrUnknownSubscription = 117 // UNKNOWN_SUBSCRIPTION_ID
	ErrUnsupportedCodec    = 76  // UNSUPPORTED_COMPRESSION_TYPE
	ErrTelemetryTooLarge   = 118 // TELEMETRY_TOO_LARGE
)

// instance returns the client's entry, made anew when it is unknown,
// expired or its subscription changed (the timestamps start over then, as
// in Kafka, so a changed subscription is answered at once), and extends
// its life.
func (c *ClientInstances) instance(id [16]byte, sub ClientSubscription) *clientInstance {
	now := c.now()
	in := c.instances[id]
	if in == nil || now.After(in.expires) || in.sub.ID != sub.ID {
		terminating := in != nil && in.sub.ID == sub.ID && in.terminating
		in = &clientInstance{sub: sub, terminating: terminating}
		c.instances[id] = in
	}
	in.expires = now.Add(max(instanceCacheExpiry, 3*time.Duration(sub.IntervalMs)*time.Millisecond))
	for k, other := range c.instances {
		if now.After(other.expires) {
			delete(c.instances, k)
		}
	}
	return in
}

// GetSubscription answers GetTelemetrySubscriptions for an instance: its
// subscription, or ErrThrottled when it asks again within its push
// interval.
func (c *ClientInstances) GetSubscription(id [16]byte, sub ClientSubscription) (ClientSubscription, int16) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.instance(id, sub)
	now := c.now()
	last := in.lastGet
	if in.lastPush.After(last) {
		last = in.lastPush
	}
	if !last.IsZero() && now.Sub(last) < time.Duration(in.sub.IntervalMs)*time.Millisecond {
		return ClientSubscription{}, ErrThrottled
	}
	in.lastGet = now
	return in.sub, 0
}

// Push checks a PushTelemetry as ClientMetricsManager.validatePushRequest
// does and returns the error code (0 to accept), with how long the
// instance lives without another request (its series as long). A terminating push marks the instance even when
// it is refused.
func (c *ClientInstances) Push(id [16]byte, sub ClientSubscription, subscriptionID int32, codec int8, size int, terminating bool) (int16, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.instance(id, sub)
	defer func() { in.terminating = in.terminating || terminating }()
	now := c.now()
	ttl := in.expires.Sub(now)
	if in.terminating {
		return ErrInvalidRequest, ttl
	}
	accept := in.lastGet.After(in.lastPush) || in.lastPush.IsZero() || now.Sub(in.lastPush) >= time.Duration(in.sub.IntervalMs)*time.Millisecond
	if !accept && !terminating {
		return ErrThrottled, ttl
	}
	if accept {
		in.lastPush = now
	}
	switch {
	case subscriptionID != in.sub.ID:
		return ErrUnknownSubscription, ttl
	case codec < 0 || codec > 4:
		return ErrUnsupportedCodec, ttl
	case size > TelemetryMaxBytes:
		return ErrTelemetryTooLarge, ttl
	}
	return 0, ttl
}
