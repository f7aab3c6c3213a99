package quota

import (
	"context"
	"errors"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
)

// ipQuota builds a stored connection_creation_rate quota of an ip entity;
// ip "" is the default ip entity.
func ipQuota(ip string, v float64) metadata.Quotas {
	part := metadata.QuotaEntityData{Type: metadata.QuotaEntityIP}
	if ip != "" {
		part.Name = str(ip)
	}
	return metadata.Quotas{Entity: metadata.NewQuotaEntity([]metadata.QuotaEntityData{part}), Values: map[string]float64{ConnectionCreationRate: v}}
}

// TestConnectionRateResolution: an address's own quota beats the default
// ip entity's, other addresses get the default, and with neither (or
// Int.MaxValue, Kafka's "no quota") an address is not measured; user and
// client-id quotas do not count.
func TestConnectionRateResolution(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	cases := []struct {
		name         string
		quotas       []metadata.Quotas
		rateA, rateB int // 0: not measured
	}{
		{"none", nil, 0, 0},
		{"client quotas only", []metadata.Quotas{q("alice", "", ProducerByteRate, 5)}, 0, 0},
		{"specific only", []metadata.Quotas{ipQuota("10.0.0.1", 3)}, 3, 0},
		{"default only", []metadata.Quotas{ipQuota("", 7)}, 7, 7},
		{"specific beats default", []metadata.Quotas{ipQuota("", 7), ipQuota("10.0.0.1", 3)}, 3, 7},
		{"specific above default", []metadata.Quotas{ipQuota("", 7), ipQuota("10.0.0.1", 100)}, 100, 7},
		{"Int.MaxValue is no quota", []metadata.Quotas{ipQuota("", 7), ipQuota("10.0.0.1", 2147483647)}, 0, 7},
		{"IPv4-mapped name", []metadata.Quotas{ipQuota("::ffff:10.0.0.1", 4)}, 4, 0},
		{"fractions truncate", []metadata.Quotas{ipQuota("10.0.0.2", 2.9)}, 0, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newTestManager(c.quotas...)
			for _, x := range []struct {
				addr netip.Addr
				want int
			}{{a, c.rateA}, {b, c.rateB}, {netip.AddrFrom16(a.As16()), c.rateA}} {
				got, ok := m.ConnectionRate(x.addr)
				if !ok {
					got = 0
				}
				if got != x.want {
					t.Errorf("%v: rate %d (measured %v), want %d", x.addr, got, ok, x.want)
				}
			}
		})
	}
}

// TestConnectionRateThrottle follows ConnectionQuotas over Kafka's default
// windows (11 × 1 s): at 2 connections per second the measured window is
// at least 10 s, so 20 connections at once are admitted and the 21st is
// throttled (2.1 per second measured against 2) for 0.1/2 × 10 s = 0.5 s,
// and is not counted, so the next ones are throttled as long. Another address, with no quota, is never throttled.
func TestConnectionRateThrottle(t *testing.T) {
	m, clock := newTestManager(ipQuota("10.0.0.1", 2))
	a, other := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.9")
	for i := range 20 {
		if d := m.RecordConnection(a); d != 0 {
			t.Fatalf("connection %d throttled %v, want admitted", i+1, d)
		}
	}
	for range 3 {
		if d := m.RecordConnection(a); d != 500*time.Millisecond {
			t.Fatalf("21st connection throttled %v, want 500ms", d)
		}
	}
	if n := m.ConnectionsThrottled(); n != 3 {
		t.Fatalf("throttled count %d, want 3", n)
	}
	for i := range 50 {
		if d := m.RecordConnection(other); d != 0 {
			t.Fatalf("unquoted address throttled on connection %d (%v)", i+1, d)
		}
	}
	// A second later the rate is still measured over 10 s (Rate pads the
	// window to quota.window.num-1 full windows), so still throttled.
	clock.advance(time.Second)
	if d := m.RecordConnection(a); d != 500*time.Millisecond {
		t.Fatalf("after 1 s throttled %v, want 500ms", d)
	}
	// At 10.5 s, 21 connections over 10.5 s is the rate: one more is
	// admitted (the throttled ones were taken back out), then none.
	clock.advance(9500 * time.Millisecond)
	if d := m.RecordConnection(a); d != 0 {
		t.Fatalf("after 10.5 s throttled %v, want admitted", d)
	}
	if d := m.RecordConnection(a); d <= 0 || d > time.Second {
		t.Fatalf("connection over the rate after 10.5 s throttled %v, want (0, 1s]", d)
	}
}

// TestConnectionRateThrottleTime checks the cap of one quota window: with
// windows of 2 × 10 s (at least 10 s measured) and a rate of 1, the 11th
// connection at once measures 1.1 per second and is throttled 0.1 × 10 s
// = 1 s; a rate of 0 asks for an infinite delay, capped at the window.
func TestConnectionRateThrottleTime(t *testing.T) {
	clock := &fakeClock{now: time.UnixMilli(1_000_000)}
	m := NewManager(Config{Now: clock.Now, Window: Window{Num: 2, SizeMs: 10_000}})
	m.SetQuotas([]metadata.Quotas{ipQuota("", 1)})
	a := netip.MustParseAddr("192.0.2.7")
	for i := range 10 {
		if d := m.RecordConnection(a); d != 0 {
			t.Fatalf("connection %d throttled %v", i+1, d)
		}
	}
	if d := m.RecordConnection(a); d != time.Second {
		t.Fatalf("11th connection throttled %v, want 1s", d)
	}
	m.SetQuotas([]metadata.Quotas{ipQuota("", 0)})
	if d := m.RecordConnection(netip.MustParseAddr("192.0.2.8")); d != 10*time.Second {
		t.Fatalf("rate 0: throttled %v, want the 10 s cap", d)
	}
}

// Kafka's listener and broker sensors count every connection, throttled
// or not, and delay by QuotaUtils.throttleTime capped at one window.
func TestCreationRateCountsThrottledConnections(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	r := NewCreationRate(Window{Num: 2, SizeMs: 1000}, func() time.Time { return now })
	for i, want := range []time.Duration{0, 0, 500 * time.Millisecond, time.Second, time.Second} {
		if got := r.Record(2); got != want {
			t.Fatalf("connection %d at 2/s: throttle %v, want %v", i+1, got, want)
		}
	}
	if got := r.Measure(); got != 5 {
		t.Fatalf("Measure = %v, want 5 (every connection counts)", got)
	}
}

// TestConnectionRateOfHostNamedEntity: an ip entity named by a host name
// applies to the address the name resolves to, once the lookup (made
// once, in the background) answers; a name that does not resolve applies
// to nothing and is not looked up again.
func TestConnectionRateOfHostNamedEntity(t *testing.T) {
	m := NewManager(Config{Now: (&fakeClock{now: time.UnixMilli(1_000_000)}).Now})
	release := make(chan struct{})
	var lookups sync.Map
	m.hosts.lookup = func(_ context.Context, host string) (netip.Addr, error) {
		n, _ := lookups.LoadOrStore(host, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		<-release
		if host == "broker-host" {
			return netip.MustParseAddr("10.0.0.9"), nil
		}
		return netip.Addr{}, errors.New("no such host")
	}
	quotas := []metadata.Quotas{ipQuota("broker-host", 3), ipQuota("gone", 5)}
	m.SetQuotas(quotas)
	addr := netip.MustParseAddr("10.0.0.9")
	if _, ok := m.ConnectionRate(addr); ok {
		t.Fatal("measured before its host name resolved")
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if rate, ok := m.ConnectionRate(addr); ok {
			if rate != 3 {
				t.Fatalf("rate %d, want 3", rate)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the host-named entity's rate never applied to its address")
		}
		runtime.Gosched()
	}
	m.SetQuotas(quotas) // a new image naming the same hosts looks nothing up again
	for _, host := range []string{"broker-host", "gone"} {
		n, ok := lookups.Load(host)
		if !ok || n.(*atomic.Int32).Load() != 1 {
			t.Errorf("%s looked up %v times, want once", host, n)
		}
	}
	if rate, ok := m.ConnectionRate(addr); !ok || rate != 3 {
		t.Errorf("after the same quotas again: rate %d (measured %v), want 3", rate, ok)
	}
}

// TestLookupHostPrefersIPv4: as InetAddress.getByName, localhost is
// 127.0.0.1 (the system's hosts file answers it).
func TestLookupHostPrefersIPv4(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hostLookupTimeout)
	defer cancel()
	a, err := lookupHost(ctx, "localhost")
	if err != nil || a != netip.MustParseAddr("127.0.0.1") {
		t.Fatalf("localhost = %v, %v; want 127.0.0.1", a, err)
	}
}
