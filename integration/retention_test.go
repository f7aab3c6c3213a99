package integration

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// retentionBroker starts a broker that runs retention every 50 ms, with a
// client that sends uncompressed batches of up to 1 MiB.
func retentionBroker(t *testing.T) (*karsttest.Broker, context.Context, *kgo.Client, *kadm.Client) {
	t.Helper()
	b := karsttest.Start(t, karsttest.WithConfig("log.retention.check.interval.ms", "50"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerBatchMaxBytes(1<<20),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return b, testContext(t), cl, kadm.NewClient(cl)
}

// logStartOffset is the log start offset of partition 0 of topic, as
// ListOffsets "earliest" answers it.
func logStartOffset(ctx context.Context, t *testing.T, adm *kadm.Client, topic string) int64 {
	t.Helper()
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := starts.Lookup(topic, 0)
	return o.Offset
}

// TestRetentionDeletesOldSegments fills several 1 MiB segments, then lets
// retention.bytes and retention.ms delete the old ones: the log start
// offset moves, and consumers start from it.
func TestRetentionDeletesOldSegments(t *testing.T) {
	b, ctx, cl, adm := retentionBroker(t)
	configs := map[string]*string{"segment.bytes": ptr("1048576"), "retention.bytes": ptr("2097152")}
	if _, err := adm.CreateTopic(ctx, 1, 1, configs, "retained"); err != nil {
		t.Fatal(err)
	}
	value := bytes.Repeat([]byte("r"), 100_000)
	for range 60 { // about 6 MiB: six segments
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "retained", Value: value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	earliest := func() int64 { return logStartOffset(ctx, t, adm, "retained") }
	// Six segments of ten records; retention.bytes keeps what fits in 2 MiB
	// (retention may already have run while the records were produced).
	for earliest() < 30 {
		if ctx.Err() != nil {
			t.Fatalf("retention.bytes kept too much: log start offset %d", earliest())
		}
		time.Sleep(20 * time.Millisecond)
	}
	afterBytes := earliest()

	// retention.ms=1 makes every closed segment expired at once.
	if _, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: ptr("1")}}, "retained"); err != nil {
		t.Fatal(err)
	}
	for earliest() <= afterBytes {
		if ctx.Err() != nil {
			t.Fatal("retention.ms never deleted a segment")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ends, err := adm.ListEndOffsets(ctx, "retained")
	if err != nil {
		t.Fatal(err)
	}
	end, _ := ends.Lookup("retained", 0)
	if end.Offset != 60 {
		t.Fatalf("end offset %d after retention, want 60", end.Offset)
	}
	// Everything is past retention.ms, so even the active segment goes (as
	// in Kafka, which rolls it).
	for earliest() < 60 {
		if ctx.Err() != nil {
			t.Fatalf("retention.ms kept offsets from %d", earliest())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// retention.ms=1 would delete the next record too before the consumer
	// reads it, so retention goes back to the default first.
	if _, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "retention.ms"}}, "retained"); err != nil {
		t.Fatal(err)
	}
	start := earliest()
	produced, err := cl.ProduceSync(ctx, &kgo.Record{Topic: "retained", Value: []byte("after")}).First()
	if err != nil {
		t.Fatal(err)
	}
	if produced.Offset != 60 {
		t.Fatalf("a new record after retention landed at %d, want the old end 60", produced.Offset)
	}
	consumer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("retained"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	fetches := consumer.PollFetches(ctx)
	if err := fetches.Err(); err != nil {
		t.Fatal(err)
	}
	if first := fetches.Records()[0].Offset; first != start || start > 60 {
		t.Fatalf("consumer started at %d, log start offset is %d", first, start)
	}
}
