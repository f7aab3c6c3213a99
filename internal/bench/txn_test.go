package bench

import (
	"context"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// Transactions commit, are counted, and what they wrote reads back the
// same with either isolation level once they are all committed.
func TestTxnCommitsAndConsumeReadsThemBothWays(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, parts := range []int32{1, 10} {
		res := Txn(ctx, TxnConfig{Addr: b.Addr(), Partitions: parts, RecordSize: 64, Producers: 2, Txns: 20, Duration: 20 * time.Second})
		t.Log(res.Line())
		if err := res.Err(); err != nil {
			t.Fatalf("partitions=%d: %v", parts, err)
		}
		if n, _ := res.Int("txns"); n != 20 {
			t.Errorf("partitions=%d: %d txns, want 20", parts, n)
		}
		if n, _ := res.Int("records"); n != 200 {
			t.Errorf("partitions=%d: %d records, want 200", parts, n)
		}
		for _, k := range []string{"txn_per_s", "p50_ms", "p99_ms"} {
			if v, _ := res.Float(k); v <= 0 {
				t.Errorf("partitions=%d: %s=%v", parts, k, v)
			}
		}
	}
	for _, iso := range []string{"read_uncommitted", "read_committed"} {
		res := Consume(ctx, ConsumeConfig{Addr: b.Addr(), Topic: "karst-bench-txn-10", Records: 200, Duration: 20 * time.Second, Isolation: iso})
		t.Log(res.Line())
		if err := res.Err(); err != nil {
			t.Fatalf("%s: %v", iso, err)
		}
		if n, _ := res.Int("records"); n != 200 {
			t.Errorf("%s: read %d records, want 200", iso, n)
		}
	}
}

func TestTxnStopsAtDuration(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res := Txn(ctx, TxnConfig{Addr: b.Addr(), RecordSize: 16, Duration: 300 * time.Millisecond})
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Fatalf("a 300ms run took %v", took)
	}
}

func TestConsumeRejectsUnknownIsolation(t *testing.T) {
	res := Consume(context.Background(), ConsumeConfig{Addr: "127.0.0.1:1", Isolation: "snapshot"})
	if res.Err() == nil {
		t.Fatalf("accepted isolation snapshot: %s", res.Line())
	}
}
