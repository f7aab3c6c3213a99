package integration

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestConnectionCreationRateIsEnforced (KIP-612): with
// connection_creation_rate=2 on ip entity 127.0.0.1 (over 2 × 1 s quota
// windows, so measured over at least 1 s), ten raw connections opened at
// once are all accepted by TCP, but the broker throttles those over the
// rate: it never reads them and closes them after the throttle delay,
// counting each in kafka_network_ip_connections_throttled_total; the
// others are served. Connections from 127.0.0.2, which has no quota, are
// all served and none is counted. The test asserts on the broker's counter
// and on which connections are answered, not on how long anything takes.
func TestConnectionCreationRateIsEnforced(t *testing.T) {
	b, _, adm := adminClient(t, quotaWindows...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ip := "127.0.0.1"
	resp, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
		Entity: []kadm.ClientQuotaEntityComponent{{Type: "ip", Name: &ip}},
		Ops:    []kadm.AlterClientQuotaOp{{Key: "connection_creation_rate", Value: 2}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp {
		if r.Err != nil {
			t.Fatalf("AlterClientQuotas: %v %s", r.Err, r.ErrMessage)
		}
	}
	described, err := adm.DescribeClientQuotas(ctx, false, []kadm.DescribeClientQuotaComponent{{Type: "ip", MatchName: &ip}})
	if err != nil {
		t.Fatal(err)
	}
	if len(described) != 1 || len(described[0].Values) != 1 || described[0].Values[0].Key != "connection_creation_rate" || described[0].Values[0].Value != 2 {
		t.Fatalf("DescribeClientQuotas ip=%s: %+v", ip, described)
	}

	counter := func() float64 {
		t.Helper()
		v := metricValue(scrapeMetrics(t, ctx, b.MetricsURL()), "kafka_network_ip_connections_throttled_total")
		if v < 0 {
			t.Fatal("kafka_network_ip_connections_throttled_total not exported")
		}
		return v
	}
	before := counter()
	const n = 10
	served := dialAndAsk(t, b.Addr(), nil, n)
	throttled := int(counter() - before)
	t.Logf("127.0.0.1: %d of %d connections served, %d throttled", served, n, throttled)
	// Ten connections dialled within a few seconds are over 2 per second
	// (the rate is measured over at least 1 s); each one not served was
	// throttled.
	if throttled == 0 || served+throttled != n {
		t.Fatalf("127.0.0.1: %d served and %d throttled of %d connections at 2 per second", served, throttled, n)
	}

	other := &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}
	probe, err := (&net.Dialer{LocalAddr: other}).DialContext(ctx, "tcp", b.Addr())
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2 (%v): the other-address check needs it", err)
	}
	probe.Close()
	before = counter()
	if served := dialAndAsk(t, b.Addr(), other, n); served != n {
		t.Fatalf("127.0.0.2 (no quota): %d of %d connections served", served, n)
	}
	if after := counter(); after != before {
		t.Fatalf("127.0.0.2 (no quota): throttled counter %v -> %v", before, after)
	}
}

// dialAndAsk opens n connections to addr at once (from local, if set),
// then sends ApiVersions v0 on each and returns how many were answered; a
// connection the broker closes instead is not.
func dialAndAsk(t *testing.T, addr string, local *net.TCPAddr, n int) int {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	if local != nil {
		d.LocalAddr = local
	}
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
	}
	served := 0
	for i, c := range conns {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = 0
		if askOnce(c, int32(i), req) {
			served++
		}
	}
	return served
}

// askOnce writes req and reports whether an answer to it came back
// before the connection was closed.
func askOnce(c net.Conn, correlationID int32, req kmsg.Request) bool {
	if _, err := c.Write(frameRequest("", correlationID, req)); err != nil {
		return false
	}
	var head [8]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return false
	}
	return int32(binary.BigEndian.Uint32(head[4:])) == correlationID
}
