package main

import (
	"context"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The topics every scenario writes. codecs gets batches under each
// compression codec from a plain (non-idempotent, acks=1) producer;
// idempotent gets batches from an idempotent acks=all producer.
var (
	codecsTopic = TopicSpec{Name: "dd-codecs", Partitions: 3,
		Configs: map[string]string{"max.message.bytes": "60000", "retention.ms": "987654321"}, TooLarge: 70000}
	idempotentTopic = TopicSpec{Name: "dd-idempotent", Partitions: 3,
		Configs: map[string]string{"retention.bytes": "536870912"}}
	singleTopic = TopicSpec{Name: "dd-single", Partitions: 1, Configs: map[string]string{}}
)

var codecs = []struct {
	name  string
	codec kgo.CompressionCodec
}{
	{"none", kgo.NoCompression()},
	{"gzip", kgo.GzipCompression()},
	{"snappy", kgo.SnappyCompression()},
	{"lz4", kgo.Lz4Compression()},
	{"zstd", kgo.ZstdCompression()},
}

// baseTimestamp is a fixed create time so records carry known timestamps.
var baseTimestamp = time.UnixMilli(1_700_000_000_000)

func clientOpts(bootstrap string, extra ...kgo.Opt) []kgo.Opt {
	return append([]kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(50 * time.Millisecond),
		kgo.RequestTimeoutOverhead(10 * time.Second),
		kgo.RetryTimeout(30 * time.Second),
	}, extra...)
}

// produce writes the topics and records and records what the broker then
// serves; broker names its kind in the mismatch reports of later brokers.
func produce(ctx context.Context, bootstrap, broker string) (*Manifest, error) {
	admin, err := kgo.NewClient(clientOpts(bootstrap)...)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	topics := []TopicSpec{codecsTopic, idempotentTopic, singleTopic}
	for i := range topics {
		t := &topics[i]
		cfg := map[string]*string{}
		for k, v := range t.Configs {
			cfg[k] = &v
		}
		res, err := adm.CreateTopic(ctx, t.Partitions, 1, cfg, t.Name)
		if err == nil {
			err = res.Err
		}
		if err != nil {
			return nil, fmt.Errorf("creating %s: %w", t.Name, err)
		}
		t.ID = res.ID.String()
	}

	m := &Manifest{Topics: topics, Offsets: map[string][2]int64{}}
	for i, c := range codecs {
		last := i == len(codecs)-1
		var recs []*kgo.Record
		for p := int32(0); p < codecsTopic.Partitions; p++ {
			recs = append(recs, topInLastRound(makeRecords(codecsTopic.Name, p, c.name, 25), last)...)
		}
		if err := produceWith(ctx, bootstrap, recs, c.name, m,
			kgo.ProducerBatchCompression(c.codec), kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck())); err != nil {
			return nil, err
		}
	}
	for round := 0; round < 3; round++ {
		var recs []*kgo.Record
		last := round == 2
		for p := int32(0); p < idempotentTopic.Partitions; p++ {
			recs = append(recs, topInLastRound(makeRecords(idempotentTopic.Name, p, "idempotent", 40), last)...)
		}
		recs = append(recs, topInLastRound(makeRecords(singleTopic.Name, 0, "idempotent", 10), last)...)
		codec := codecs[round%len(codecs)]
		if err := produceWith(ctx, bootstrap, recs, codec.name, m, kgo.ProducerBatchCompression(codec.codec)); err != nil {
			return nil, err
		}
	}

	names := []string{codecsTopic.Name, idempotentTopic.Name, singleTopic.Name}
	starts, err := adm.ListStartOffsets(ctx, names...)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("listing start offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, names...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("listing end offsets: %w", err)
	}
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := starts.Lookup(o.Topic, o.Partition)
		m.Offsets[tpKey(o.Topic, o.Partition)] = [2]int64{s.Offset, o.Offset}
	})
	if err := recordTimestampAnswers(ctx, admin, m, broker); err != nil {
		return nil, fmt.Errorf("recording ListOffsets answers: %w", err)
	}
	return m, nil
}

// topInLastRound gives, in the last round, the middle record of a
// partition's batch a timestamp above every random one: each partition's
// largest timestamp then sits inside (not at the end of) the batch written
// last, so MAX_TIMESTAMP and lookups near it depend on how the broker
// indexed its last segment and on reading inside compressed batches.
func topInLastRound(recs []*kgo.Record, last bool) []*kgo.Record {
	if last && len(recs) > 0 {
		r := recs[len(recs)/2]
		r.Timestamp = baseTimestamp.Add(time.Duration(1_000_000+r.Partition) * time.Millisecond)
	}
	return recs
}

// makeRecords builds n records for one partition: keys, values of varied
// size (some null), headers (some none) and distinct timestamps.
func makeRecords(topic string, partition int32, tag string, n int) []*kgo.Record {
	out := make([]*kgo.Record, n)
	for i := range out {
		r := &kgo.Record{Topic: topic, Partition: partition,
			Timestamp: baseTimestamp.Add(time.Duration(mrand.IntN(1_000_000)) * time.Millisecond)}
		if i%7 != 3 {
			r.Key = fmt.Appendf(nil, "%s-%d-%d", tag, partition, i)
		}
		if i%9 != 4 {
			// Half random (incompressible), half repetitive (compressible).
			v := make([]byte, 1+mrand.IntN(300))
			if i%2 == 0 {
				rand.Read(v)
			} else {
				for j := range v {
					v[j] = byte('a' + j%5)
				}
			}
			r.Value = v
		}
		if i%4 != 0 {
			r.Headers = []kgo.RecordHeader{{Key: "codec", Value: []byte(tag)}, {Key: "i", Value: fmt.Appendf(nil, "%d", i)}}
			if i%5 == 0 {
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: "empty", Value: nil})
			}
		}
		out[i] = r
	}
	return out
}

// produceWith sends recs with a client built from opts and records where
// each landed.
func produceWith(ctx context.Context, bootstrap string, recs []*kgo.Record, tag string, m *Manifest, opts ...kgo.Opt) error {
	cl, err := kgo.NewClient(clientOpts(bootstrap, opts...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("producing (%s): %w", tag, err)
	}
	for _, r := range recs {
		m.Records = append(m.Records, fromKgo(r, tag))
	}
	return nil
}

func fromKgo(r *kgo.Record, tag string) Rec {
	out := Rec{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value,
		Timestamp: r.Timestamp.UnixMilli(), Codec: tag, Headers: []Header{}}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, Header{Key: h.Key, Value: h.Value})
	}
	return out
}
