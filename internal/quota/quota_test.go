package quota

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/karst-broker/karst/internal/metadata"
)

func str(s string) *string { return &s }

// q builds a stored quota: user and client are "" for absent, "<default>"
// for the default entity.
func q(user, client string, key string, v float64) metadata.Quotas {
	var parts []metadata.QuotaEntityData
	for _, p := range []struct{ typ, name string }{{metadata.QuotaEntityUser, user}, {metadata.QuotaEntityClientID, client}} {
		switch p.name {
		case "":
		case "<default>":
			parts = append(parts, metadata.QuotaEntityData{Type: p.typ})
		default:
			parts = append(parts, metadata.QuotaEntityData{Type: p.typ, Name: str(p.name)})
		}
	}
	return metadata.Quotas{Entity: metadata.NewQuotaEntity(parts), Values: map[string]float64{key: v}}
}

// fakeClock is a settable clock.
type fakeClock struct{ now time.Time }

func (f *fakeClock) Now() time.Time          { return f.now }
func (f *fakeClock) advance(d time.Duration) { f.now = f.now.Add(d) }

func newTestManager(quotas ...metadata.Quotas) (*Manager, *fakeClock) {
	clock := &fakeClock{now: time.UnixMilli(1_000_000)}
	m := NewManager(Config{Now: clock.Now})
	m.SetQuotas(quotas)
	return m, clock
}

// TestEntityPrecedence checks the order in which Kafka's
// DefaultQuotaCallback picks a quota and which entity the sensor is shared
// by, for one request from user alice with client id app.
func TestEntityPrecedence(t *testing.T) {
	const k = ProducerByteRate
	cases := []struct {
		name   string
		quotas []metadata.Quotas
		tags   Tags
		limit  float64 // 0: none
	}{
		{"no quotas", nil, Tags{ClientID: "app"}, 0},
		{"client-id only", []metadata.Quotas{q("", "app", k, 10)}, Tags{ClientID: "app"}, 10},
		{"client-id default only", []metadata.Quotas{q("", "<default>", k, 11)}, Tags{ClientID: "app"}, 11},
		{"other client-id", []metadata.Quotas{q("", "other", k, 10)}, Tags{ClientID: "app"}, 0},
		{"user only", []metadata.Quotas{q("alice", "", k, 20)}, Tags{User: "alice"}, 20},
		{"user default only", []metadata.Quotas{q("<default>", "", k, 21)}, Tags{User: "alice"}, 21},
		{"user+client only", []metadata.Quotas{q("alice", "app", k, 30)}, Tags{User: "alice", ClientID: "app"}, 30},
		{"all levels: user+client wins", []metadata.Quotas{
			q("alice", "app", k, 1), q("alice", "<default>", k, 2), q("alice", "", k, 3),
			q("<default>", "app", k, 4), q("<default>", "<default>", k, 5), q("<default>", "", k, 6),
			q("", "app", k, 7), q("", "<default>", k, 8)}, Tags{User: "alice", ClientID: "app"}, 1},
		{"user, default client", []metadata.Quotas{
			q("alice", "<default>", k, 2), q("alice", "", k, 3), q("<default>", "app", k, 4), q("", "app", k, 7)},
			Tags{User: "alice", ClientID: "app"}, 2},
		{"user beats default-user+client", []metadata.Quotas{
			q("alice", "", k, 3), q("<default>", "app", k, 4), q("", "app", k, 7)}, Tags{User: "alice"}, 3},
		{"default user + client", []metadata.Quotas{
			q("<default>", "app", k, 4), q("<default>", "", k, 6), q("", "app", k, 7)}, Tags{User: "alice", ClientID: "app"}, 4},
		{"default user + default client", []metadata.Quotas{
			q("<default>", "<default>", k, 5), q("<default>", "", k, 6), q("", "app", k, 7)}, Tags{User: "alice", ClientID: "app"}, 5},
		{"default user beats client", []metadata.Quotas{q("<default>", "", k, 6), q("", "app", k, 7)}, Tags{User: "alice"}, 6},
		{"client-id after users of others", []metadata.Quotas{q("bob", "", k, 6), q("", "app", k, 7)}, Tags{ClientID: "app"}, 7},
		{"client default after users of others", []metadata.Quotas{q("bob", "", k, 6), q("", "<default>", k, 8)}, Tags{ClientID: "app"}, 8},
		{"only others' quotas", []metadata.Quotas{q("bob", "", k, 6), q("", "other", k, 8)}, Tags{ClientID: "app"}, 0},
		{"other key ignored", []metadata.Quotas{q("alice", "", ConsumerByteRate, 6)}, Tags{ClientID: "app"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newTestManager(c.quotas...)
			l := m.kinds[Produce].limits.Load()
			tags := l.tags("alice", "app")
			if tags != c.tags {
				t.Fatalf("tags = %+v, want %+v", tags, c.tags)
			}
			got, ok := l.limit(tags)
			if want := c.limit; ok != (want != 0) || got != want {
				t.Fatalf("limit = %v (%v), want %v", got, ok, want)
			}
		})
	}
}

// TestQuotaTypesStayEnabled: like Kafka's quotaTypesEnabled, a kind of
// entity that once had a quota keeps deciding the tags after removal.
func TestQuotaTypesStayEnabled(t *testing.T) {
	m, _ := newTestManager(q("alice", "", ProducerByteRate, 5))
	m.SetQuotas([]metadata.Quotas{q("", "app", ProducerByteRate, 7)})
	l := m.kinds[Produce].limits.Load()
	if got := l.tags("alice", "app"); got != (Tags{ClientID: "app"}) {
		t.Fatalf("tags = %+v", got)
	}
	if l.enabled != userQuotas|clientIDQuotas {
		t.Fatalf("enabled = %b", l.enabled)
	}
}

// TestRateWindow checks Rate.windowSize: at least quota.window.num-1 full
// windows, then the time since the oldest live sample.
func TestRateWindow(t *testing.T) {
	w := Window{Num: 11, SizeMs: 1000}
	var r rate
	r.record(w, 1000, 0)
	if got := r.windowSize(w, 500); got != 10500 {
		t.Fatalf("window after 0.5 s = %d, want 10500", got)
	}
	for i := int64(1); i <= 20; i++ {
		r.record(w, 1000, i*1000)
	}
	// 21 records of 1000 over 20 s; only the last 11 windows (and the
	// overlapping one) are live.
	if got := r.windowSize(w, 20_000); got < 10_000 || got > 12_000 {
		t.Fatalf("window after 20 s = %d", got)
	}
	got := r.measure(w, 20_000)
	if got < 900 || got > 1200 {
		t.Fatalf("rate = %v, want about 1000/s", got)
	}
	// Everything expires after num × size without events.
	if got := r.measure(w, 20_000+11_000); got != 0 {
		t.Fatalf("rate after expiry = %v", got)
	}
}

// TestProduceThrottleMath checks QuotaUtils.throttleTime on the numbers:
// against 100 kB/s over 11 × 1 s windows, whose rate is measured over at
// least 10 s.
func TestProduceThrottleMath(t *testing.T) {
	m, clock := newTestManager(q("", "app", ProducerByteRate, 100_000))
	c := Client{User: "alice", ClientID: "app"}
	// 1,000,000 bytes over a 10 s window = 100,000/s: exactly the bound.
	if d := m.RecordProduce(c, 1_000_000); d != 0 {
		t.Fatalf("at the bound: throttle %v", d)
	}
	// 500,000 more: 150,000/s over 10 s; X = (150k-100k)/100k × 10 s = 5 s.
	if d := m.RecordProduce(c, 500_000); d != 5*time.Second {
		t.Fatalf("throttle = %v, want 5s", d)
	}
	// As in Kafka, the window never counts less than 10 full windows, so
	// 5 s later the rate is still measured over 10 s (the estimate X
	// assumes W+X); the samples recorded now expire 11 s after their last
	// event.
	clock.advance(5 * time.Second)
	s := m.kinds[Produce].sensors[Tags{ClientID: "app"}]
	if got := s.rate.measure(m.cfg.Window, clock.now.UnixMilli()); math.Abs(got-150_000) > 1 {
		t.Fatalf("rate 5 s later = %v, want 150000", got)
	}
	clock.advance(6 * time.Second)
	if got := s.rate.measure(m.cfg.Window, clock.now.UnixMilli()); got != 0 {
		t.Fatalf("rate 11 s later = %v, want 0", got)
	}
	// Another client id has no quota and is never throttled.
	if d := m.RecordProduce(Client{User: "alice", ClientID: "free"}, 100_000_000); d != 0 {
		t.Fatalf("client without quota throttled %v", d)
	}
}

// TestRequestThrottleCapped: request_percentage throttle times are capped
// at one window (ClientRequestQuotaManager.maxThrottleTimeMs).
func TestRequestThrottleCapped(t *testing.T) {
	m, _ := newTestManager(q("alice", "", RequestPercentage, 1))
	d := m.RecordRequestTime(Client{User: "alice"}, 10*time.Second)
	if d != time.Second {
		t.Fatalf("throttle = %v, want the 1 s cap", d)
	}
	// 100 ms of handler time over the 10 s window is 1 %; 1 ms more is
	// 1.01 %: X = 0.01 / 1 × 10 s = 100 ms.
	m2, _ := newTestManager(q("alice", "", RequestPercentage, 1))
	if d := m2.RecordRequestTime(Client{User: "alice"}, 100*time.Millisecond); d != 0 {
		t.Fatalf("at 1%%: throttle %v", d)
	}
	if d := m2.RecordRequestTime(Client{User: "alice"}, time.Millisecond); d != 100*time.Millisecond {
		t.Fatalf("at 1.01%%: throttle %v, want 100ms", d)
	}
}

// TestFetchUnrecordAndMaxBytes covers getMaxValueInQuotaWindow and
// unrecordQuotaSensor.
func TestFetchUnrecordAndMaxBytes(t *testing.T) {
	m, _ := newTestManager(q("", "<default>", ConsumerByteRate, 1000))
	c := Client{User: "u", ClientID: "x"}
	if got, ok := m.FetchMaxBytes(c); !ok || got != 10_000 {
		t.Fatalf("max bytes = %d %v, want 10000", got, ok)
	}
	if d := m.RecordFetch(c, 20_000); d != 10*time.Second {
		t.Fatalf("throttle = %v, want 10s", d)
	}
	m.UnrecordFetch(c, 20_000)
	if d := m.RecordFetch(c, 1); d != 0 {
		t.Fatalf("after unrecord: throttle %v", d)
	}
	m2, _ := newTestManager()
	if _, ok := m2.FetchMaxBytes(c); ok {
		t.Fatal("no quota yet a max")
	}
}

// TestMutationQuota checks the token bucket (burst = rate × 11 × 1 s) and
// the strict and permissive behaviours.
func TestMutationQuota(t *testing.T) {
	m, clock := newTestManager(q("alice", "", ControllerMutationRate, 2))
	c := Client{User: "alice", ClientID: "admin"}
	strict := m.MutationQuota(c, true)
	// The bucket starts full with 22 tokens: 30 partitions take it to -8.
	if err := strict.Record(30); err != nil {
		t.Fatalf("first record refused: %v", err)
	}
	if err := strict.Record(1); err != ErrThrottled {
		t.Fatalf("second record: %v, want ErrThrottled", err)
	}
	// -8 tokens at 2/s: 4 s to get back to zero.
	if d := strict.ThrottleTime(); d != 4*time.Second {
		t.Fatalf("throttle = %v, want 4s", d)
	}
	clock.advance(time.Second)
	if d := strict.ThrottleTime(); d != 3*time.Second {
		t.Fatalf("throttle a second later = %v, want 3s", d)
	}
	clock.advance(3 * time.Second)
	if err := m.MutationQuota(c, true).Record(1); err != nil {
		t.Fatalf("after refill: %v", err)
	}
	// Permissive: accepted, and throttled by the deficit.
	perm := m.MutationQuota(c, false)
	if err := perm.Record(5); err != nil {
		t.Fatal(err)
	}
	// 0 - 1 - 5 = -6 tokens: 3 s.
	if d := perm.ThrottleTime(); d != 3*time.Second {
		t.Fatalf("permissive throttle = %v, want 3s", d)
	}
	if q := m.MutationQuota(Client{User: "bob"}, true); q.Record(1000) != nil || q.ThrottleTime() != 0 {
		t.Fatal("bob has no quota yet was throttled")
	}
	none, _ := newTestManager()
	if none.MutationQuota(c, true).Enabled() {
		t.Fatal("mutation quota enabled with no quota")
	}
}

// TestSensorsExpire: idle sensors go after an hour, as Kafka's do.
func TestSensorsExpire(t *testing.T) {
	m, clock := newTestManager(q("", "<default>", ProducerByteRate, 1000))
	m.RecordProduce(Client{ClientID: "a"}, 1)
	clock.advance(inactiveSensorExpiry)
	m.RecordProduce(Client{ClientID: "b"}, 1)
	if _, ok := m.kinds[Produce].sensors[Tags{ClientID: "a"}]; ok {
		t.Fatal("idle sensor kept")
	}
	if _, ok := m.kinds[Produce].sensors[Tags{ClientID: "b"}]; !ok {
		t.Fatal("live sensor dropped")
	}
}

// TestCollectorBoundsSeries: past MaxSeriesPerKind entities, the rest are
// one "other" series.
func TestCollectorBoundsSeries(t *testing.T) {
	m, _ := newTestManager(q("", "<default>", ProducerByteRate, 1e9))
	for i := range MaxSeriesPerKind + 50 {
		m.RecordProduce(Client{ClientID: strings.Repeat("x", i+1)}, 10)
	}
	m.Throttled(Produce, Client{ClientID: "x"}, 250*time.Millisecond)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m.Collector())
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	values := map[string]float64{}
	for _, f := range families {
		counts[f.GetName()] = len(f.GetMetric())
		if len(f.GetMetric()) == 1 && f.GetMetric()[0].GetCounter() != nil {
			values[f.GetName()] = f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	if n := counts["kafka_server_produce_byte_rate"]; n != MaxSeriesPerKind+1 {
		t.Fatalf("byte-rate series = %d, want %d", n, MaxSeriesPerKind+1)
	}
	if v := values["kafka_server_produce_throttled_responses_total"]; v != 1 {
		t.Fatalf("throttled responses = %v, want 1", v)
	}
}

// TestImageRefresh: quotas come from the metadata image when one is given.
func TestImageRefresh(t *testing.T) {
	var m *Manager
	if d := m.RecordProduce(Client{}, 1); d != 0 {
		t.Fatal("nil manager throttled")
	}
	m = NewManager(Config{Image: func() *metadata.Image { return nil }})
	if d := m.RecordProduce(Client{ClientID: "x"}, 1<<30); d != 0 {
		t.Fatal("no quotas, yet throttled")
	}
}
