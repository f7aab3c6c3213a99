package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// The data-path modes run against an in-process Karst, and against an
// external broker named by KARST_BENCH_BROKER=host:port (for example
// Apache Kafka from interop/kafka/start.sh).

func TestDataPathExternalBroker(t *testing.T) {
	addr := os.Getenv("KARST_BENCH_BROKER")
	if addr == "" {
		t.Skip("set KARST_BENCH_BROKER=host:port to run produce/consume/e2e against a broker")
	}
	runDataPath(t, addr)
}

func TestDataPathKarst(t *testing.T) {
	b := karsttest.Start(t)
	runDataPath(t, b.Addr())
}

func runDataPath(t *testing.T, addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	topic := fmt.Sprintf("bench-test-%d", time.Now().UnixNano())

	p := Produce(ctx, ProduceConfig{Addr: addr, Topic: topic, Partitions: 3, RecordSize: 512, Records: 5000, Duration: 20 * time.Second,
		Producer: ProducerConfig{Acks: -1, Linger: 2 * time.Millisecond}})
	t.Log(p.Line())
	if err := p.Err(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	if n, _ := p.Int("records"); n != 5000 {
		t.Fatalf("produce acknowledged %d records, want 5000", n)
	}

	checkConsumed(t, "consume", Consume(ctx, ConsumeConfig{Addr: addr, Topic: topic, Records: 5000, Duration: 20 * time.Second}))
	// Clients splitting the partitions read each record once between
	// them: two sharing three partitions, and four, one with none, asked
	// for more than there is (they stop at the deadline, short=1).
	checkConsumed(t, "2 consumers", Consume(ctx, ConsumeConfig{Addr: addr, Topic: topic, Records: 5000, Duration: 20 * time.Second, Consumers: 2}))
	four := Consume(ctx, ConsumeConfig{Addr: addr, Topic: topic, Records: 6000, Duration: 3 * time.Second, Consumers: 4})
	checkConsumed(t, "4 consumers", four)
	if n, _ := four.Int("short"); n != 1 {
		t.Errorf("4 consumers short=%d, want 1 (they asked for 6000)", n)
	}
	// The raw consumer must count exactly what franz-go's did, asking for
	// more than there is (it stops at its deadline, short=1) and with a
	// partition limit that cuts batches so fetches end in partial ones.
	raw := ConsumeRaw(ctx, ConsumeConfig{Addr: addr, Topic: topic, Records: 6000, Duration: 3 * time.Second, PartitionMaxBytes: 3000})
	checkConsumed(t, "raw consume", raw)
	if n, _ := raw.Int("short"); n != 1 {
		t.Errorf("raw consumer short=%d, want 1 (it asked for 6000)", n)
	}

	e := E2E(ctx, E2EConfig{Addr: addr, Topic: topic + "-e2e", Partitions: 3, RecordSize: 256, Rate: 2000, Duration: 2 * time.Second,
		Producer: ProducerConfig{Acks: -1}})
	t.Log(e.Line())
	if err := e.Err(); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	sent, _ := e.Int("sent")
	recv, _ := e.Int("received")
	if sent < 3000 || recv != sent {
		t.Errorf("e2e sent %d received %d", sent, recv)
	}
	if p50, _ := e.Float("p50_ms"); p50 <= 0 {
		t.Errorf("e2e p50 %v", p50)
	}
}

// checkConsumed checks that a consume run read the 5000 records of 512
// bytes that runDataPath produced.
func checkConsumed(t *testing.T, what string, res *Result) {
	t.Helper()
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if n, _ := res.Int("records"); n != 5000 {
		t.Fatalf("%s read %d records, want 5000", what, n)
	}
	if n, _ := res.Int("bytes"); n != 5000*512 {
		t.Errorf("%s read %d bytes, want %d", what, n, 5000*512)
	}
}
