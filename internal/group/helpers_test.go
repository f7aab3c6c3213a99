package group

import (
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/coordinator"
)

// fakeClock is a Clock tests move by hand, starting at now; moving it
// runs the timers it set (the coordinator runtime's) as they come due.
type fakeClock struct {
	now    time.Time
	once   sync.Once
	manual *coordinator.ManualClock
}

func (f *fakeClock) clock() *coordinator.ManualClock {
	f.once.Do(func() { f.manual = coordinator.NewManualClock(f.now) })
	return f.manual
}

func (f *fakeClock) Now() time.Time { return f.clock().Now() }

func (f *fakeClock) AfterFunc(d time.Duration, fn func()) func() bool {
	return f.clock().AfterFunc(d, fn)
}

func (f *fakeClock) advance(d time.Duration) { f.clock().Advance(d) }

// memStore records appended records, as __consumer_offsets would.
type memStore struct {
	mu   sync.Mutex
	recs []Record
	fail error
}

func (s *memStore) Append(_ string, recs []Record) (Durable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	s.recs = append(s.recs, recs...)
	return noWait, nil
}

type harness struct {
	t     *testing.T
	clock *fakeClock
	store *memStore
	c     *Coordinator
}

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.InitialRebalanceDelay = 3 * time.Second
	// Group mechanics tests run the clock for days; offset expiry (which
	// deletes empty groups) is tested on its own (expiry_test.go).
	cfg.OffsetsRetentionCheckInterval = 10 * 365 * 24 * time.Hour
	return cfg
}

func newHarness(t *testing.T, cfg Config) *harness {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	store := &memStore{}
	n := 0
	c := New(cfg, Options{Clock: clock, Store: store})
	c.newUUID = func() string { n++; return "uuid" + string(rune('a'+n%26)) + time.Duration(n).String() }
	return &harness{t: t, clock: clock, store: store, c: c}
}

// halt stops c's timers, as the broker it ran in stopping does: a test
// that restarts on the same clock must not have the old coordinator act
// on the records the new one loads.
func halt(c *Coordinator) {
	c.local.UnloadAll()
	if o, ok := c.store.(*OffsetsTopic); ok {
		o.unloadAll()
	}
}

func (h *harness) advance(d time.Duration) {
	h.clock.advance(d)
	h.c.Tick()
}

func consumerProtocols(topics ...string) []Protocol {
	m := kmsg.NewConsumerMemberMetadata()
	m.Topics = topics
	return []Protocol{{Name: "range", Metadata: m.AppendTo(nil)}}
}

func joinReq(group, member string) JoinRequest {
	return JoinRequest{GroupID: group, MemberID: member, ClientID: "client", ClientHost: "/127.0.0.1",
		ProtocolType: "consumer", Protocols: consumerProtocols("t"),
		SessionTimeout: 10 * time.Second, RebalanceTimeout: 30 * time.Second, RequireKnownMemberID: true}
}

// ready returns a result that must already be there.
func ready[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case r := <-ch:
		return r
	default:
		t.Fatalf("no answer yet")
		panic("unreachable")
	}
}

func waiting[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("answered early: %+v", r)
	default:
	}
}

func wantErr(t *testing.T, got, want *kerr.Error) {
	t.Helper()
	if got != want {
		t.Fatalf("error %v, want %v", got, want)
	}
}

// joinNew joins a member from scratch (MEMBER_ID_REQUIRED, then again)
// and returns its id and the pending answer.
func (h *harness) joinNew(group string) (string, <-chan JoinResult) {
	h.t.Helper()
	r := ready(h.t, h.c.Join(joinReq(group, "")))
	wantErr(h.t, r.Err, kerr.MemberIDRequired)
	return r.MemberID, h.c.Join(joinReq(group, r.MemberID))
}

// stableGroup forms a stable group of n members and returns their ids,
// the leader first.
func (h *harness) stableGroup(group string, n int) ([]string, int32) {
	h.t.Helper()
	ids := make([]string, n)
	chans := make([]<-chan JoinResult, n)
	for i := range ids {
		ids[i], chans[i] = h.joinNew(group)
	}
	// Members joining during the initial delay extend it.
	for i := 0; i < 20 && len(chans[0]) == 0; i++ {
		h.advance(h.c.cfg.InitialRebalanceDelay)
	}
	var gen int32
	var leader string
	for i := range chans {
		r := ready(h.t, chans[i])
		wantErr(h.t, r.Err, nil)
		gen, leader = r.Generation, r.Leader
	}
	var syncs []<-chan SyncResult
	for _, id := range ids {
		if id == leader {
			continue
		}
		syncs = append(syncs, h.c.Sync(SyncRequest{GroupID: group, MemberID: id, Generation: gen}))
	}
	var assigns []Assignment
	for _, id := range ids {
		assigns = append(assigns, Assignment{MemberID: id, Assignment: []byte(id)})
	}
	r := ready(h.t, h.c.Sync(SyncRequest{GroupID: group, MemberID: leader, Generation: gen, Assignments: assigns}))
	wantErr(h.t, r.Err, nil)
	for _, ch := range syncs {
		wantErr(h.t, ready(h.t, ch).Err, nil)
	}
	out := []string{leader}
	for _, id := range ids {
		if id != leader {
			out = append(out, id)
		}
	}
	return out, gen
}

func (h *harness) state(group string) State {
	g := h.c.group(group, false)
	if g == nil {
		return Dead
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state
}

// settle advances the clock by the initial delay until ch has an answer.
func settle[T any](h *harness, ch <-chan T) T {
	h.t.Helper()
	for i := 0; i < 20 && len(ch) == 0; i++ {
		h.advance(h.c.cfg.InitialRebalanceDelay)
	}
	return ready(h.t, ch)
}
