package integration

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

func ptr(s string) *string { return &s }

// TestTopicCompressionTypeIsHonoured produces uncompressed batches to a
// topic with compression.type=zstd and checks the stored batches are zstd
// and the records intact.
func TestTopicCompressionTypeIsHonoured(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	created, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, map[string]*string{"compression.type": ptr("zstd")}, "zstd-topic")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "zstd-topic", Value: []byte{byte(i), 'v'}}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	req := kmsg.NewPtrFetchRequest()
	req.MaxBytes, req.SessionEpoch = 1<<20, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = "zstd-topic", created.ID // the client picks v13+, which names topics by id
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.PartitionMaxBytes = 1 << 20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	req.SetVersion(12)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.Topics[0].Partitions[0]; p.ErrorCode != 0 || len(p.RecordBatches) == 0 {
		t.Fatalf("fetch: error %d, %d bytes, high watermark %d", p.ErrorCode, len(p.RecordBatches), p.HighWatermark)
	}
	data := resp.Topics[0].Partitions[0].RecordBatches
	batches := 0
	for len(data) > 0 {
		var batch kmsg.RecordBatch
		if err := batch.ReadFrom(data); err != nil {
			t.Fatal(err)
		}
		if codec := batch.Attributes & 0x7; codec != 4 {
			t.Fatalf("stored batch has codec %d, want zstd (4)", codec)
		}
		data = data[12+batch.Length:]
		batches++
	}
	if batches != 20 {
		t.Fatalf("%d batches", batches)
	}
}

// TestTimestampRules checks INVALID_TIMESTAMP for a CreateTime record too
// far in the future (message.timestamp.after.max.ms, one hour by default)
// and that a LogAppendTime topic stamps records with the broker's clock.
func TestTimestampRules(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.RecordRetries(0),
		kgo.ConsumeTopics("append-time"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "create-time"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"message.timestamp.type": ptr("LogAppendTime")}, "append-time"); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(2 * time.Hour)
	err = cl.ProduceSync(ctx, &kgo.Record{Topic: "create-time", Value: []byte("late"), Timestamp: future}).FirstErr()
	if !errors.Is(err, kerr.InvalidTimestamp) {
		t.Fatalf("2 hours ahead: %v, want INVALID_TIMESTAMP", err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "create-time", Value: []byte("ok"), Timestamp: time.Now().Add(-30 * 24 * time.Hour)}).FirstErr(); err != nil {
		t.Fatalf("a month ago: %v", err)
	}
	before := time.Now()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "append-time", Value: []byte("x"), Timestamp: future}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("record not consumed")
		}
		var r *kgo.Record
		fetches.EachRecord(func(rec *kgo.Record) { r = rec })
		if r == nil {
			continue
		}
		if r.Attrs.TimestampType() != 1 || r.Timestamp.Before(before.Add(-time.Second)) || r.Timestamp.After(time.Now().Add(time.Second)) {
			t.Fatalf("timestamp %v type %d, want the broker's append time", r.Timestamp, r.Attrs.TimestampType())
		}
		return
	}
}

// TestCompactedTopicRefusesKeylessRecords checks INVALID_RECORD with
// per-record errors for a record without a key on a compacted topic.
func TestCompactedTopicRefusesKeylessRecords(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.RecordRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": ptr("compact")}, "compacted"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "compacted", Key: []byte("k"), Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatalf("keyed record: %v", err)
	}
	err = cl.ProduceSync(ctx, &kgo.Record{Topic: "compacted", Value: []byte("no key")}).FirstErr()
	if !errors.Is(err, kerr.InvalidRecord) {
		t.Fatalf("keyless record: %v, want INVALID_RECORD", err)
	}
}

// TestDescribeConfigsSeesServerProperties checks that a broker setting
// from server.properties shows through a topic's effective config with
// Kafka's source, as kafka-configs --describe shows it.
func TestDescribeConfigsSeesServerProperties(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("log.retention.ms", "18000000"))
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "inherits"); err != nil {
		t.Fatal(err)
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, "inherits")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On("inherits", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rc.Configs {
		if c.Key == "retention.ms" {
			if c.MaybeValue() != "18000000" || c.Source != kmsg.ConfigSourceStaticBrokerConfig {
				t.Fatalf("retention.ms = %q from %v, want 18000000 from STATIC_BROKER_CONFIG", c.MaybeValue(), c.Source)
			}
			return
		}
	}
	t.Fatal("retention.ms not described")
}
