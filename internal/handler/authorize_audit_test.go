package handler

import (
	"bytes"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/karst-broker/karst/internal/loglevel"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/authorizer"
)

// lockedBuffer is a log sink safe for the handler's concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Split(strings.TrimSpace(b.buf.String()), "\n")
}

func (b *lockedBuffer) count(substr string) int {
	n := 0
	for _, l := range b.lines() {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

func TestAuditDeniedOncePerInterval(t *testing.T) {
	var out lockedBuffer
	levels := loglevel.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: loglevel.LevelTrace}), slog.LevelInfo)
	clock := time.Unix(1_700_000_000, 0)
	reg := prometheus.NewRegistry()
	a := newAuditor(levels.Logger(auditLoggerName), func() time.Time { return clock }, time.Minute, reg)

	write := authorizer.Action{Operation: metadata.OpWrite, ResourceType: metadata.ResourceTopic, ResourceName: "orders"}
	read := authorizer.Action{Operation: metadata.OpRead, ResourceType: metadata.ResourceTopic, ResourceName: "orders"}
	for range 5 {
		a.decided("User:bob", "127.0.0.1", "Produce", write, authorizer.Decision{}, false)
		clock = clock.Add(time.Second)
	}
	a.decided("User:bob", "127.0.0.1", "Fetch", read, authorizer.Decision{}, false)
	a.decided("User:alice", "127.0.0.1", "Produce", write, authorizer.Decision{}, false)
	a.decided("User:alice", "127.0.0.1", "Produce", write, authorizer.Decision{Allowed: true}, false) // allowed: DEBUG, not at INFO
	a.decided("User:bob", "127.0.0.1", "Metadata", write, authorizer.Decision{}, true)                // quiet: TRACE only

	bobWrite := "Principal = User:bob is Denied operation = WRITE from host = 127.0.0.1 on resource = Topic:LITERAL:orders for request = Produce with resourceRefCount = 1 based on rule DefaultDeny"
	if n := out.count(bobWrite); n != 1 {
		t.Fatalf("bob's write denial written %d times in one interval, want 1:\n%s", n, strings.Join(out.lines(), "\n"))
	}
	if n := out.count("User:bob is Denied operation = READ"); n != 1 {
		t.Errorf("bob's read denial (another operation) written %d times, want 1", n)
	}
	if n := out.count("User:alice is Denied operation = WRITE"); n != 1 {
		t.Errorf("alice's denial (another principal) written %d times, want 1", n)
	}
	if n := out.count("is Allowed"); n != 0 {
		t.Errorf("an allowed decision was written at INFO")
	}
	if n := out.count("for request = Metadata"); n != 0 {
		t.Errorf("a quiet denial was written at INFO")
	}
	if !strings.Contains(out.lines()[0], "logger="+auditLoggerName) || !strings.Contains(out.lines()[0], "level=INFO") {
		t.Errorf("first line %q: want level=INFO and logger=%s", out.lines()[0], auditLoggerName)
	}

	// After the interval the next denial is written with the four repeats
	// it held back.
	clock = clock.Add(time.Minute)
	a.decided("User:bob", "127.0.0.1", "Produce", write, authorizer.Decision{}, false)
	if n := out.count(bobWrite + " (4 repeats suppressed)"); n != 1 {
		t.Fatalf("after the interval: want one line with 4 repeats suppressed:\n%s", strings.Join(out.lines(), "\n"))
	}
	if n := out.count("suppressed=4"); n != 1 {
		t.Errorf("suppressed=4 attribute written %d times, want 1", n)
	}

	// A denial repeated and then not seen again is summed up when the
	// next interval's denials prune it.
	a.decided("User:bob", "127.0.0.1", "Produce", write, authorizer.Decision{}, false)
	a.decided("User:bob", "127.0.0.1", "Produce", write, authorizer.Decision{}, false)
	clock = clock.Add(2 * time.Minute)
	a.decided("User:carol", "127.0.0.1", "Produce", write, authorizer.Decision{}, false)
	if n := out.count(bobWrite + " (2 repeats suppressed)"); n != 1 {
		t.Errorf("a denial not seen again: want its 2 repeats summed up:\n%s", strings.Join(out.lines(), "\n"))
	}

	// DEBUG on the audit logger (a BROKER_LOGGER config) shows allowed
	// decisions.
	if err := levels.Set(auditLoggerName, "DEBUG"); err != nil {
		t.Fatal(err)
	}
	a.decided("User:alice", "127.0.0.1", "Produce", write, authorizer.Decision{Allowed: true}, false)
	if n := out.count("User:alice is Allowed operation = WRITE"); n != 1 {
		t.Errorf("allowed at DEBUG written %d times, want 1", n)
	}

	// Every decision is counted, written or not.
	denied := a.counts.WithLabelValues("WRITE", "TOPIC", "DENIED")
	if got := counterValue(t, denied); got != 11 {
		t.Errorf("WRITE TOPIC DENIED = %v, want 11", got)
	}
	if got := counterValue(t, a.counts.WithLabelValues("WRITE", "TOPIC", "ALLOWED")); got != 2 {
		t.Errorf("WRITE TOPIC ALLOWED = %v, want 2", got)
	}
	if got := counterValue(t, a.counts.WithLabelValues("READ", "TOPIC", "DENIED")); got != 1 {
		t.Errorf("READ TOPIC DENIED = %v, want 1", got)
	}
	// Refusals are counted by principal and API; quiet denials and
	// allowed decisions are not refusals.
	for _, want := range []struct {
		principal, api string
		n              float64
	}{{"User:bob", "Produce", 8}, {"User:bob", "Fetch", 1}, {"User:alice", "Produce", 1}, {"User:carol", "Produce", 1}} {
		if got := counterValue(t, a.refusals.WithLabelValues(want.principal, want.api)); got != want.n {
			t.Errorf("refusals of %s's %s = %v, want %v", want.principal, want.api, got, want.n)
		}
	}
	families, err := reg.Gather()
	if err != nil || len(families) != 2 || families[0].GetName() != "karst_authorizer_decisions_total" || len(families[0].GetMetric()) != 3 ||
		families[1].GetName() != "karst_authorizer_refusals_total" || len(families[1].GetMetric()) != 4 {
		t.Errorf("registry holds %v (%v), want karst_authorizer_decisions_total with 3 series and karst_authorizer_refusals_total with 4", families, err)
	}
}

func TestAuditUntrackedDenialsBounded(t *testing.T) {
	var out lockedBuffer
	levels := loglevel.New(slog.NewTextHandler(&out, nil), slog.LevelInfo)
	clock := time.Unix(1_700_000_000, 0)
	a := newAuditor(levels.Logger(auditLoggerName), func() time.Time { return clock }, time.Minute, nil)
	for i := range maxTrackedDenials + 50 {
		a.decided("User:bob", "10.0.0.1", "Produce", authorizer.Action{Operation: metadata.OpWrite,
			ResourceType: metadata.ResourceTopic, ResourceName: "t" + strconv.Itoa(i)}, authorizer.Decision{}, false)
	}
	if n := out.count("is Denied"); n != maxTrackedDenials {
		t.Fatalf("written %d denials, want the %d tracked", n, maxTrackedDenials)
	}
	clock = clock.Add(time.Minute)
	a.decided("User:bob", "10.0.0.1", "Produce", authorizer.Action{Operation: metadata.OpWrite, ResourceType: metadata.ResourceTopic, ResourceName: "t0"}, authorizer.Decision{}, false)
	if n := out.count("Denied 50 more operations"); n != 1 {
		t.Errorf("want one line summing the 50 untracked denials")
	}
}

// TestAuditByResourceType: authorizeByResourceType's audited question
// (WRITE on the topic "hardcode", for no resource of the request) is
// written with resourceRefCount = 0, allowed at DEBUG and denied at TRACE
// (Kafka's logIfDenied false), and is no refusal.
func TestAuditByResourceType(t *testing.T) {
	var out lockedBuffer
	levels := loglevel.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: loglevel.LevelTrace}), slog.LevelInfo)
	a := newAuditor(levels.Logger(auditLoggerName), time.Now, time.Minute, nil)
	act := authorizer.Action{Operation: metadata.OpWrite, ResourceType: metadata.ResourceTopic, ResourceName: authorizer.HardcodedName}
	line := "Principal = User:bob is Denied operation = WRITE from host = 127.0.0.1 on resource = Topic:LITERAL:hardcode for request = InitProducerId with resourceRefCount = 0 based on rule DefaultDeny"
	a.decidedUnreferenced("User:bob", "127.0.0.1", "InitProducerId", act, authorizer.Decision{})
	if n := out.count(line); n != 0 {
		t.Fatalf("the denial was written at INFO:\n%s", strings.Join(out.lines(), "\n"))
	}
	if err := levels.Set(auditLoggerName, "TRACE"); err != nil {
		t.Fatal(err)
	}
	a.decidedUnreferenced("User:bob", "127.0.0.1", "InitProducerId", act, authorizer.Decision{})
	a.decidedUnreferenced("User:bob", "127.0.0.1", "InitProducerId", act, authorizer.Decision{Allowed: true})
	if n := out.count(line); n != 1 || out.count("level=DEBUG-4") != 1 {
		t.Errorf("at TRACE: want the denial once, at TRACE (slog level DEBUG-4):\n%s", strings.Join(out.lines(), "\n"))
	}
	if n := out.count("level=DEBUG msg=\"Principal = User:bob is Allowed operation = WRITE from host = 127.0.0.1 on resource = Topic:LITERAL:hardcode for request = InitProducerId with resourceRefCount = 0"); n != 1 {
		t.Errorf("the allowed question at DEBUG written %d times, want 1:\n%s", n, strings.Join(out.lines(), "\n"))
	}
	if got := counterValue(t, a.refusals.WithLabelValues("User:bob", "InitProducerId")); got != 0 {
		t.Errorf("authorizeByResourceType's denial counted as %v refusals, want 0", got)
	}
	if got := counterValue(t, a.counts.WithLabelValues("WRITE", "TOPIC", "DENIED")); got != 2 {
		t.Errorf("WRITE TOPIC DENIED = %v, want 2", got)
	}
}

// TestAuditRequestNamesAreKafkas: the audit names requests as Kafka's
// ApiKeys do where kmsg spells them otherwise.
func TestAuditRequestNamesAreKafkas(t *testing.T) {
	for key, want := range map[int16]string{0: "Produce", 22: "InitProducerId", 29: "DescribeAcls", 36: "SaslAuthenticate",
		45: "AlterPartitionReassignments", 50: "DescribeUserScramCredentials", 68: "ConsumerGroupHeartbeat"} {
		if got := requestName(Lookup(key)); got != want {
			t.Errorf("API %d is named %q, want %q", key, got, want)
		}
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// BenchmarkAuditDecided is the audit's cost per decision at the INFO
// level: an allowed one (counted, not written) and a repeated denial
// (counted and held back).
func BenchmarkAuditDecided(b *testing.B) {
	levels := loglevel.New(slog.NewTextHandler(io.Discard, nil), slog.LevelInfo)
	a := newAuditor(levels.Logger(auditLoggerName), time.Now, time.Minute, nil)
	act := authorizer.Action{Operation: metadata.OpWrite, ResourceType: metadata.ResourceTopic, ResourceName: "orders"}
	for _, allowed := range []bool{true, false} {
		b.Run(map[bool]string{true: "allowed", false: "denied"}[allowed], func(b *testing.B) {
			for b.Loop() {
				a.decided("User:bob", "127.0.0.1", "Produce", act, authorizer.Decision{Allowed: allowed}, false)
			}
		})
	}
}
