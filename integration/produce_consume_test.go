package integration

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestFranzGoProduceConsumeEveryCodec creates a topic, produces records
// with every codec and reads them back byte-exact in per-partition order.
func TestFranzGoProduceConsumeEveryCodec(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	admin, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const topic = "franz-codecs"
	if _, err := kadm.NewClient(admin).CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	codecs := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}
	var sent []*kgo.Record
	for name, codec := range codecs {
		p, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerBatchCompression(codec), kgo.DefaultProduceTopic(topic))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			r := &kgo.Record{
				Key:       []byte(fmt.Sprintf("%s-%d", name, i%7)),
				Value:     bytes.Repeat([]byte(name), i+1),
				Headers:   []kgo.RecordHeader{{Key: "codec", Value: []byte(name)}, {Key: "i", Value: []byte(fmt.Sprint(i))}},
				Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i)),
			}
			if err := p.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sent = append(sent, r)
		}
		p.Close()
	}
	big := &kgo.Record{Topic: topic, Key: []byte("big"), Value: bytes.Repeat([]byte{0xab}, 1<<20-200)}
	p, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerBatchMaxBytes(2<<20))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ProduceSync(ctx, big).FirstErr(); err != nil {
		t.Fatalf("1 MiB record: %v", err)
	}
	p.Close()
	sent = append(sent, big)

	c, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxBytes(4<<20), kgo.FetchMaxPartitionBytes(4<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	byPartitionOffset := map[[2]int64]*kgo.Record{}
	for _, r := range sent {
		byPartitionOffset[[2]int64{int64(r.Partition), r.Offset}] = r
	}
	got := 0
	lastOffset := map[int32]int64{}
	for got < len(sent) {
		fetches := c.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records: %v", got, len(sent), err)
		}
		fetches.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
		fetches.EachRecord(func(r *kgo.Record) {
			want, ok := byPartitionOffset[[2]int64{int64(r.Partition), r.Offset}]
			if !ok {
				t.Fatalf("unexpected record at %d/%d", r.Partition, r.Offset)
			}
			if last, seen := lastOffset[r.Partition]; seen && r.Offset != last+1 {
				t.Fatalf("partition %d: offset %d after %d", r.Partition, r.Offset, last)
			}
			lastOffset[r.Partition] = r.Offset
			if !bytes.Equal(r.Key, want.Key) || !bytes.Equal(r.Value, want.Value) || !r.Timestamp.Equal(want.Timestamp) || len(r.Headers) != len(want.Headers) {
				t.Fatalf("record %d/%d differs", r.Partition, r.Offset)
			}
			for i, h := range r.Headers {
				if h.Key != want.Headers[i].Key || !bytes.Equal(h.Value, want.Headers[i].Value) {
					t.Fatalf("record %d/%d header %d differs", r.Partition, r.Offset, i)
				}
			}
			got++
		})
	}
}
