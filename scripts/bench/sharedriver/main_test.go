package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// TestMain lets redeliver re-run the test binary as its holder process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "hold" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestConsumeAndRedeliver drives the modes share.sh runs against one broker:
// every prepared record is counted as accepted once, without redelivery or
// acknowledgement errors, and records held by a SIGKILLed holder come back to
// the other member.
func TestConsumeAndRedeliver(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	f := flags{brokers: b.Addr(), topic: "share-bench", groups: "c3", partitions: 3, recordSize: 1024, records: 3000, timeout: 60 * time.Second}
	if p := prepare(ctx, f); p.Err() != nil {
		t.Fatalf("prepare: %v (%s)", p.Err(), p.Line())
	}

	f.group, f.consumers = "c3", 3
	c := consume(ctx, f)
	if err := c.Err(); err != nil {
		t.Fatalf("consume: %v (%s)", err, c.Line())
	}
	for key, want := range map[string]int64{"records": 3000, "bytes": 3000 * 1024, "ack_errors": 0, "redelivered": 0} {
		if got, _ := c.Int(key); got != want {
			t.Errorf("consume %s = %d, want %d (%s)", key, got, want, c.Line())
		}
	}
	if p99, _ := c.Float("ack_p99_ms"); p99 <= 0 {
		t.Errorf("ack_p99_ms = %v, want a measured latency (%s)", p99, c.Line())
	}

	t.Log(c.Line())
	// One partition, as share.sh's: with more partitions than members the
	// holder may be the only member assigned the held records' partition, and
	// they would reach the other member only once the holder is fenced.
	f.topic, f.groups, f.partitions, f.records = "share-hold", "r", 1, 200
	if p := prepare(ctx, f); p.Err() != nil {
		t.Fatalf("prepare: %v (%s)", p.Err(), p.Line())
	}
	f.group, f.signal = "r", "KILL"
	r := redeliver(ctx, f)
	if err := r.Err(); err != nil {
		t.Fatalf("redeliver: %v (%s)", err, r.Line())
	}
	t.Log(r.Line())
	// The broker releases a closed connection's records at once: well within
	// the 30 s default lock, on a loaded machine too.
	if ms, ok := r.Float("after_signal_ms"); !ok || ms <= 0 || ms > 15000 {
		t.Errorf("after_signal_ms = %v, want the delay of a release at the connection's close (%s)", ms, r.Line())
	}
}
