package server

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// typicalProduceBody is a Produce v9 body with one partition of 1 KiB of
// records, the kind a low-latency producer sends.
func typicalProduceBody() []byte {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(9)
	req.Acks, req.TimeoutMillis = -1, 30000
	topic := kmsg.NewProduceRequestTopic()
	topic.Topic = "bench"
	part := kmsg.NewProduceRequestTopicPartition()
	part.Records = make([]byte, 1024)
	topic.Partitions = append(topic.Partitions, part)
	req.Topics = append(req.Topics, topic)
	return req.AppendTo(nil)
}

// BenchmarkDecodeProduce decodes a typical produce body as dispatch does,
// with and without the decode budgets, from one goroutine and from all.
func BenchmarkDecodeProduce(b *testing.B) {
	body := typicalProduceBody()
	for _, tc := range []struct {
		name   string
		budget int64
	}{{"budget=off", -1}, {"budget=on", 0}} {
		d := newDecodeBudgets(tc.budget)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				req := kmsg.NewPtrProduceRequest()
				req.SetVersion(9)
				if err := d.decode(req, body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := kmsg.NewPtrProduceRequest()
					req.SetVersion(9)
					if err := d.decode(req, body); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// typicalFetchBody is a Fetch v12 body (the newest version naming topics)
// asking for one partition of one topic, the request a consumer sends
// most.
func typicalFetchBody() []byte {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(12)
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 500, 1, 50<<20
	topic := kmsg.NewFetchRequestTopic()
	topic.Topic = "bench"
	part := kmsg.NewFetchRequestTopicPartition()
	part.PartitionMaxBytes = 1 << 20
	topic.Partitions = append(topic.Partitions, part)
	req.Topics = append(req.Topics, topic)
	return req.AppendTo(nil)
}

// BenchmarkDecodeFetch decodes a typical fetch body as dispatch does: every
// check a non-Produce body goes through before and after ReadFrom.
func BenchmarkDecodeFetch(b *testing.B) {
	body := typicalFetchBody()
	d := newDecodeBudgets(0)
	b.ReportAllocs()
	for range b.N {
		req := kmsg.NewPtrFetchRequest()
		req.SetVersion(12)
		if err := d.decode(req, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNullCheck compares, on fetch bodies of one partition and of
// 1,000 (a consumer of many partitions), the two ways of finding a null
// where the schema has none: walking the body against the schema before
// decoding, and re-encoding the decoded request.
func BenchmarkNullCheck(b *testing.B) {
	for _, partitions := range []int{1, 1000} {
		req := kmsg.NewPtrFetchRequest()
		req.SetVersion(12)
		if err := req.ReadFrom(typicalFetchBody()); err != nil {
			b.Fatal(err)
		}
		for i := 1; i < partitions; i++ {
			req.Topics[0].Partitions = append(req.Topics[0].Partitions, req.Topics[0].Partitions[0])
		}
		body := req.AppendTo(nil)
		b.Run(fmt.Sprintf("partitions=%d/schema-walk", partitions), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if walked, err := refuseBeforeDecoding(req, body); !walked || err != nil {
					b.Fatal(walked, err)
				}
			}
		})
		b.Run(fmt.Sprintf("partitions=%d/re-encode", partitions), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := refuseNulls(req, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
