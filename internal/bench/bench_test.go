package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

func TestAPIVersionsAgainstKarst(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, conns := range []int{1, 8} {
		res := APIVersions(ctx, APIVersionsConfig{
			Addr: b.Addr(), Conns: conns, Window: 16, Requests: 2000, Duration: 10 * time.Second, Pid: os.Getpid(),
		})
		t.Log(res.Line())
		if err := res.Err(); err != nil {
			t.Fatalf("conns=%d: %v", conns, err)
		}
		if n, _ := res.Int("requests"); n != 2000 {
			t.Errorf("conns=%d: %d requests answered, want 2000", conns, n)
		}
		if p99, _ := res.Float("p99_ms"); p99 <= 0 {
			t.Errorf("conns=%d: p99 %v", conns, p99)
		}
		if _, ok := res.Int("rss_peak_kb"); !ok {
			t.Errorf("no rss_peak_kb in %s", res.Line())
		}
	}
}

func TestAPIVersionsStopsAtDuration(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res := APIVersions(ctx, APIVersionsConfig{Addr: b.Addr(), Window: 4, Requests: 1 << 40, Duration: 200 * time.Millisecond})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a 200ms run took %v", took)
	}
}

func TestConnectionsAgainstKarst(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := Connections(ctx, ConnectionsConfig{Addr: b.Addr(), Conns: 200, Pid: os.Getpid()})
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n, _ := res.Int("alive"); n != 200 {
		t.Errorf("alive = %d, want 200", n)
	}
	for _, k := range []string{"rss_before_kb", "rss_after_kb", "rss_per_conn_kb"} {
		if _, ok := res.Float(k); !ok {
			t.Errorf("no %s in %s", k, res.Line())
		}
	}
}

func TestConnectionsRefusesTooMany(t *testing.T) {
	res := Connections(context.Background(), ConnectionsConfig{Addr: "127.0.0.1:1", Conns: MaxConnections + 1})
	if res.Err() == nil {
		t.Fatal("accepted more than MaxConnections")
	}
}

func TestAPIVersionsReportsDialFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := APIVersions(ctx, APIVersionsConfig{Addr: "127.0.0.1:1", Requests: 10})
	if res.Err() == nil || !strings.Contains(res.Line(), "error=") {
		t.Fatalf("no error for a closed port: %s", res.Line())
	}
}
