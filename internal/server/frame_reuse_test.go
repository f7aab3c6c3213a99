package server_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// recordValue is the deterministic content of record i: its size varies so
// that consecutive produce requests have different lengths, and every byte
// depends on i so that a batch overwritten by a later request's bytes is
// caught.
func recordValue(i int) []byte {
	v := make([]byte, 64+(i*37)%3000)
	binary.BigEndian.PutUint32(v, uint32(i))
	for j := 4; j < len(v); j++ {
		v[j] = byte(i*31 + j)
	}
	return v
}

// The connection reuses a produce request's buffer for the next request;
// every record must still read back exactly as sent, with produce requests
// pipelined (several in flight) and one at a time (idempotent).
func TestProducedRecordsIntactWithReusedRequestBuffers(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithDefaultPartitions(3))
	for _, tc := range []struct {
		name string
		opts []kgo.Opt
	}{
		{"idempotent", nil},
		{"pipelined", []kgo.Opt{kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			topic := "reuse-" + tc.name
			const n = 4000
			opts := append([]kgo.Opt{kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic(topic),
				kgo.AllowAutoTopicCreation(), kgo.ProducerLinger(0), kgo.ProducerBatchMaxBytes(64 << 10)}, tc.opts...)
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			for i := 0; i < n; i++ {
				cl.Produce(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: recordValue(i)}, func(_ *kgo.Record, err error) {
					if err != nil {
						t.Errorf("produce: %v", err)
					}
				})
			}
			if err := cl.Flush(ctx); err != nil {
				t.Fatal(err)
			}

			cons, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics(topic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				t.Fatal(err)
			}
			defer cons.Close()
			seen := make([]bool, n)
			for got := 0; got < n; {
				fs := cons.PollFetches(ctx)
				if err := ctx.Err(); err != nil {
					t.Fatalf("read %d of %d records: %v", got, n, err)
				}
				fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
				fs.EachRecord(func(r *kgo.Record) {
					var i int
					if _, err := fmt.Sscan(string(r.Key), &i); err != nil || i < 0 || i >= n {
						t.Fatalf("record key %q", r.Key)
					}
					if !bytes.Equal(r.Value, recordValue(i)) {
						t.Fatalf("record %d at offset %d differs from what was sent", i, r.Offset)
					}
					if seen[i] {
						t.Fatalf("record %d read twice", i)
					}
					seen[i] = true
					got++
				})
			}
		})
	}
}
