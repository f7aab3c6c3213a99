package integration

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// alterBrokerDefault sets cluster-wide dynamic broker configs (BROKER "",
// DYNAMIC_DEFAULT_BROKER_CONFIG), as kafka-configs --entity-default does.
func alterBrokerDefault(ctx context.Context, t *testing.T, adm *kadm.Client, configs ...kadm.AlterConfig) {
	t.Helper()
	resps, err := adm.AlterBrokerConfigs(ctx, configs)
	if err == nil {
		for _, r := range resps {
			err = errors.Join(err, r.Err)
		}
	}
	if err != nil {
		t.Fatalf("altering the broker default: %v", err)
	}
}

// TestBrokerDefaultRetentionAppliesWithoutRestart: log.retention.ms set
// as a cluster-wide dynamic default reaches the logs of a topic without
// its own retention.ms, and retention deletes its old segments, with no
// restart.
func TestBrokerDefaultRetentionAppliesWithoutRestart(t *testing.T) {
	_, ctx, cl, adm := retentionBroker(t)
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"segment.bytes": ptr("1048576")}, "inherits"); err != nil {
		t.Fatal(err)
	}
	value := bytes.Repeat([]byte("r"), 100_000)
	for range 30 { // three segments of ten records
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "inherits", Value: value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	earliest := func() int64 { return logStartOffset(ctx, t, adm, "inherits") }
	if start := earliest(); start != 0 {
		t.Fatalf("log start offset %d before any retention was configured", start)
	}
	alterBrokerDefault(ctx, t, adm, kadm.AlterConfig{Name: "log.retention.ms", Value: ptr("1")})
	for earliest() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the broker default log.retention.ms=1 never deleted a segment")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBrokerDefaultsApplyToTheNextProduce: compression.type,
// log.message.timestamp.type and message.max.bytes changed as cluster-wide
// dynamic defaults apply to the next produce on a topic without overrides,
// while a topic's own override still wins.
func TestBrokerDefaultsApplyToTheNextProduce(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RecordRetries(0), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for topic, configs := range map[string]map[string]*string{
		"inherits": nil,
		"own":      {"compression.type": ptr("lz4"), "message.timestamp.type": ptr("CreateTime")},
	} {
		if _, err := adm.CreateTopic(ctx, 1, 1, configs, topic); err != nil {
			t.Fatal(err)
		}
	}
	created := time.UnixMilli(1_000_000_000_000) // 2001: far from the broker's clock
	produce := func(topic string, value []byte) error {
		return cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: value, Timestamp: created}).FirstErr()
	}
	for _, topic := range []string{"inherits", "own"} {
		if err := produce(topic, []byte("before")); err != nil {
			t.Fatal(err)
		}
	}
	alterBrokerDefault(ctx, t, adm,
		kadm.AlterConfig{Name: "compression.type", Value: ptr("gzip")},
		kadm.AlterConfig{Name: "log.message.timestamp.type", Value: ptr("LogAppendTime")},
		kadm.AlterConfig{Name: "message.max.bytes", Value: ptr("4000")})
	for _, topic := range []string{"inherits", "own"} {
		if err := produce(topic, []byte("after")); err != nil {
			t.Fatal(err)
		}
	}
	if err := produce("inherits", bytes.Repeat([]byte("x"), 8000)); !errors.Is(err, kerr.MessageTooLarge) {
		t.Fatalf("an 8000-byte batch under message.max.bytes=4000: %v, want MESSAGE_TOO_LARGE", err)
	}

	codecs := &batchCodecs{byTopic: map[string][]uint8{}}
	consumer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("inherits", "own"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.WithHooks(codecs))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	var records []*kgo.Record
	for len(records) < 4 {
		fetches := consumer.PollFetches(ctx)
		if err := fetches.Err(); err != nil {
			t.Fatal(err)
		}
		records = append(records, fetches.Records()...)
	}
	const none, gzip, lz4 = 0, 1, 3
	want := map[string][]uint8{"inherits": {none, gzip}, "own": {lz4, lz4}}
	for topic, w := range want {
		if got := codecs.of(topic); !slices.Equal(got, w) {
			t.Errorf("%s: stored batch codecs %v, want %v", topic, got, w)
		}
	}
	for _, r := range records {
		logAppend := r.Attrs.TimestampType() == 1
		wantLogAppend := r.Topic == "inherits" && string(r.Value) == "after"
		if logAppend != wantLogAppend || (logAppend == r.Timestamp.Equal(created)) {
			t.Errorf("%s %q: timestamp %v (log append time %v), want log append time %v", r.Topic, r.Value, r.Timestamp, logAppend, wantLogAppend)
		}
	}
}

// batchCodecs records the codec of every fetched batch, by topic.
type batchCodecs struct {
	mu      sync.Mutex
	byTopic map[string][]uint8
}

func (c *batchCodecs) OnFetchBatchRead(_ kgo.BrokerMetadata, topic string, _ int32, m kgo.FetchBatchMetrics) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byTopic[topic] = append(c.byTopic[topic], m.CompressionType)
}

func (c *batchCodecs) of(topic string) []uint8 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.byTopic[topic])
}

// TestBrokerDefaultProducerIDExpirationApplies: producer.id.expiration.ms
// changed as a cluster-wide dynamic default reaches the partition logs, so
// the next retention pass forgets an idle idempotent producer, as Kafka's
// ProducerStateManager does; it had kept Kafka's one day whatever was set.
func TestBrokerDefaultProducerIDExpirationApplies(t *testing.T) {
	_, ctx, cl, adm := retentionBroker(t)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "idle"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "idle", Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	producers := func() int {
		described, err := adm.DescribeProducers(ctx, kadm.TopicsSet{"idle": {0: {}}})
		if err != nil {
			t.Fatal(err)
		}
		p := described.SortedPartitions()
		if len(p) != 1 || p[0].Err != nil {
			t.Fatalf("describe producers: %+v", p)
		}
		return len(p[0].ActiveProducers)
	}
	if n := producers(); n != 1 {
		t.Fatalf("%d active producers after an idempotent produce, want 1", n)
	}
	alterBrokerDefault(ctx, t, adm, kadm.AlterConfig{Name: "producer.id.expiration.ms", Value: ptr("1")})
	for producers() != 0 {
		if ctx.Err() != nil {
			t.Fatal("producer.id.expiration.ms=1 never expired the idle producer")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
