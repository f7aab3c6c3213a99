package integration

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// BenchmarkShareFetchAccept: one share consumer takes 1 KiB records with
// ShareFetch (MaxRecords 500) and accepts each batch with a
// ShareAcknowledge, whose round trip (one durable write to
// __share_group_state) is reported as ack-p50/p99. Each b.N is 5,000
// records (-benchtime=4x: 20,000).
func BenchmarkShareFetchAccept(b *testing.B) {
	broker := karsttest.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	records := 5000 * b.N
	h := newShareHarness(b, ctx, broker.Addr(), "share-bench", 1, 0)
	value := make([]byte, 1024)
	for i := 0; i < records; i += 1000 {
		var rs []*kgo.Record
		for j := 0; j < 1000; j++ {
			rs = append(rs, &kgo.Record{Partition: 0, Value: value})
		}
		if err := h.cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	var lat []time.Duration
	got := 0
	epoch := int32(0)
	for got < records {
		resp := h.fetch("bench", epoch, time.Second)
		epoch++
		var batches []kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				for _, a := range p.AcquiredRecords {
					batches = append(batches, ackBatch(a.FirstOffset, a.LastOffset, ackAccept))
					got += int(a.LastOffset - a.FirstOffset + 1)
				}
			}
		}
		if len(batches) == 0 {
			b.Fatalf("no records after %d", got)
		}
		t0 := time.Now()
		h.ack("bench", epoch, batches...)
		lat = append(lat, time.Since(t0))
		epoch++
	}
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(records)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ack-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ack-p99-ms")
}
