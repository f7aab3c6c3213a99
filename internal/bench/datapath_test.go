package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// The data-path modes need Produce, Fetch and CreateTopics. They run
// against an external broker named by KARST_BENCH_BROKER=host:port (for
// example Apache Kafka from interop/kafka/start.sh), and against an
// in-process Karst when KARST_BENCH_DATAPATH=1.

func TestDataPathExternalBroker(t *testing.T) {
	addr := os.Getenv("KARST_BENCH_BROKER")
	if addr == "" {
		t.Skip("set KARST_BENCH_BROKER=host:port to run produce/consume/e2e against a broker")
	}
	runDataPath(t, addr)
}

func TestDataPathKarst(t *testing.T) {
	if os.Getenv("KARST_BENCH_DATAPATH") != "1" {
		t.Skip("set KARST_BENCH_DATAPATH=1 once Karst serves Produce, Fetch and CreateTopics")
	}
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

	c := Consume(ctx, ConsumeConfig{Addr: addr, Topic: topic, Records: 5000, Duration: 20 * time.Second})
	t.Log(c.Line())
	if err := c.Err(); err != nil {
		t.Fatalf("consume: %v", err)
	}
	if n, _ := c.Int("records"); n != 5000 {
		t.Fatalf("consumed %d records, want 5000", n)
	}
	if n, _ := c.Int("bytes"); n != 5000*512 {
		t.Errorf("consumed %d bytes, want %d", n, 5000*512)
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
