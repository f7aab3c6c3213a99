package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestProduceThenConsumeCountsEveryRecord produces with the plain client,
// reads back with it, and checks that the values are not one value
// repeated (snappy would shrink repeated values and the brokers would move
// a fraction of the bytes counted).
func TestProduceThenConsumeCountsEveryRecord(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("plain"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, "plain"); err != nil {
		t.Fatal(err)
	}

	p := produce(ctx, b.Addr(), "plain", 2000, 1024)
	if err := p.Err(); err != nil {
		t.Fatalf("produce: %v (%s)", err, p.Line())
	}
	if n, _ := p.Int("records"); n != 2000 {
		t.Fatalf("produce acknowledged %d records, want 2000 (%s)", n, p.Line())
	}
	c := consume(ctx, b.Addr(), "plain", 2000)
	if err := c.Err(); err != nil {
		t.Fatalf("consume: %v (%s)", err, c.Line())
	}
	if n, _ := c.Int("bytes"); n != 2000*1024 {
		t.Fatalf("consume read %d bytes, want %d (%s)", n, 2000*1024, c.Line())
	}

	seen := map[string]bool{}
	for read := 0; read < 2000 && ctx.Err() == nil; {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			read++
			if bytes.Equal(r.Value, make([]byte, 1024)) {
				t.Errorf("record at offset %d of partition %d is all zeros: the random pool was not filled", r.Offset, r.Partition)
			}
			seen[string(r.Value)] = true
		})
	}
	if len(seen) != 2000 {
		t.Fatalf("2,000 records read back carry %d distinct values, want 2,000", len(seen))
	}
}
