package integration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	segkafka "github.com/segmentio/kafka-go"
	segcompress "github.com/segmentio/kafka-go/compress"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// createTopic makes a one-partition topic so order is total, with room
// for the 1 MiB record.
func createTopic(t *testing.T, addr, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	maxMessage := "2097152"
	if _, err := kadm.NewClient(cl).CreateTopic(testContext(t), 1, 1, map[string]*string{"max.message.bytes": &maxMessage}, topic); err != nil {
		t.Fatal(err)
	}
}

func TestSaramaProduceConsumeEveryCodec(t *testing.T) {
	b := karsttest.Start(t)
	codecs := map[string]sarama.CompressionCodec{"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP,
		"snappy": sarama.CompressionSnappy, "lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD}
	for _, name := range codecNames {
		topic := "sarama-" + name
		createTopic(t, b.Addr(), topic)
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V3_9_0_0
		cfg.Producer.Return.Successes = true
		cfg.Producer.RequiredAcks = sarama.WaitForAll
		cfg.Producer.Compression = codecs[name]
		cfg.Producer.MaxMessageBytes = 2 * oneMiB
		producer, err := sarama.NewSyncProducer([]string{b.Addr()}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		sent := scenarioRecords(name, 40)
		var msgs []*sarama.ProducerMessage
		for _, r := range sent {
			m := &sarama.ProducerMessage{Topic: topic, Key: sarama.ByteEncoder(r.key), Value: sarama.ByteEncoder(r.value), Timestamp: r.timestamp}
			for _, h := range r.headers {
				m.Headers = append(m.Headers, sarama.RecordHeader{Key: h[0], Value: h[1]})
			}
			msgs = append(msgs, m)
		}
		if err := producer.SendMessages(msgs); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		producer.Close()

		consumer, err := sarama.NewConsumer([]string{b.Addr()}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		var got []testRecord
		timeout := time.After(20 * time.Second)
		for len(got) < len(sent) {
			select {
			case m := <-pc.Messages():
				r := testRecord{key: m.Key, value: m.Value, timestamp: m.Timestamp}
				for _, h := range m.Headers {
					r.headers = append(r.headers, [2][]byte{h.Key, h.Value})
				}
				got = append(got, r)
			case err := <-pc.Errors():
				t.Fatalf("%s: %v", name, err)
			case <-timeout:
				t.Fatalf("%s: received %d of %d", name, len(got), len(sent))
			}
		}
		pc.Close()
		consumer.Close()
		checkReceived(t, "sarama/"+name, sent, got)
	}
}

func TestKafkaGoProduceConsumeEveryCodec(t *testing.T) {
	b := karsttest.Start(t)
	codecs := map[string]segcompress.Compression{"none": 0, "gzip": segcompress.Gzip, "snappy": segcompress.Snappy,
		"lz4": segcompress.Lz4, "zstd": segcompress.Zstd}
	for _, name := range codecNames {
		topic := "kafkago-" + name
		createTopic(t, b.Addr(), topic)
		ctx := testContext(t)
		// A transport per writer: the default one caches metadata across
		// writers and would not see the topic just created.
		w := &segkafka.Writer{Addr: segkafka.TCP(b.Addr()), Topic: topic, RequiredAcks: segkafka.RequireAll, Transport: &segkafka.Transport{},
			Compression: codecs[name], BatchTimeout: 5 * time.Millisecond, BatchSize: 1000, BatchBytes: 2 * oneMiB}
		sent := scenarioRecords(name, 40)
		var msgs []segkafka.Message
		for _, r := range sent {
			m := segkafka.Message{Key: r.key, Value: r.value, Time: r.timestamp}
			for _, h := range r.headers {
				m.Headers = append(m.Headers, segkafka.Header{Key: string(h[0]), Value: h[1]})
			}
			msgs = append(msgs, m)
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w.Close()
		rd := segkafka.NewReader(segkafka.ReaderConfig{Brokers: []string{b.Addr()}, Topic: topic, Partition: 0, MaxWait: 100 * time.Millisecond, MaxBytes: 4 * oneMiB})
		var got []testRecord
		for len(got) < len(sent) {
			m, err := rd.ReadMessage(ctx)
			if err != nil {
				t.Fatalf("%s: after %d records: %v", name, len(got), err)
			}
			r := testRecord{key: m.Key, value: m.Value, timestamp: m.Time}
			for _, h := range m.Headers {
				r.headers = append(r.headers, [2][]byte{[]byte(h.Key), h.Value})
			}
			got = append(got, r)
		}
		rd.Close()
		checkReceived(t, "kafka-go/"+name, sent, got)
	}
}

func TestConfluentKafkaGoProduceConsumeEveryCodec(t *testing.T) {
	b := karsttest.Start(t)
	for _, name := range codecNames {
		topic := "confluent-" + name
		createTopic(t, b.Addr(), topic)
		p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": b.Addr(), "compression.type": name,
			"enable.idempotence": true, "linger.ms": 5, "message.max.bytes": 2 * oneMiB})
		if err != nil {
			t.Fatal(err)
		}
		sent := scenarioRecords(name, 40)
		deliveries := make(chan kafka.Event, len(sent))
		for _, r := range sent {
			m := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Key: r.key, Value: r.value, Timestamp: r.timestamp}
			for _, h := range r.headers {
				m.Headers = append(m.Headers, kafka.Header{Key: string(h[0]), Value: h[1]})
			}
			if err := p.Produce(m, deliveries); err != nil {
				t.Fatal(err)
			}
		}
		for range sent {
			select {
			case e := <-deliveries:
				if m := e.(*kafka.Message); m.TopicPartition.Error != nil {
					t.Fatalf("%s: delivery: %v", name, m.TopicPartition.Error)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: deliveries timed out", name)
			}
		}
		p.Close()

		c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": b.Addr(), "group.id": "unused-" + name,
			"enable.auto.commit": false, "enable.partition.eof": false})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Assign([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: kafka.OffsetBeginning}}); err != nil {
			t.Fatal(err)
		}
		var got []testRecord
		deadline := time.Now().Add(20 * time.Second)
		for len(got) < len(sent) && time.Now().Before(deadline) {
			ev := c.Poll(100)
			m, ok := ev.(*kafka.Message)
			if !ok {
				continue
			}
			if m.TopicPartition.Error != nil {
				t.Fatalf("%s: %v", name, m.TopicPartition.Error)
			}
			r := testRecord{key: m.Key, value: m.Value, timestamp: m.Timestamp}
			for _, h := range m.Headers {
				r.headers = append(r.headers, [2][]byte{[]byte(h.Key), h.Value})
			}
			got = append(got, r)
		}
		c.Close()
		checkReceived(t, "confluent-kafka-go/"+name, sent, got)
	}
}

func TestProduceToUnknownTopicWithoutAutoCreation(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithAutoCreateTopics(false))
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.UnknownTopicRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	err = cl.ProduceSync(testContext(t), &kgo.Record{Topic: "never-created", Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("franz-go: %v, want UNKNOWN_TOPIC_OR_PARTITION", err)
	}

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Retry.Max = 1
	cfg.Metadata.Retry.Max = 1
	cfg.Metadata.Retry.Backoff = 10 * time.Millisecond
	producer, err := sarama.NewSyncProducer([]string{b.Addr()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	_, _, err = producer.SendMessage(&sarama.ProducerMessage{Topic: "never-created", Value: sarama.StringEncoder("x")})
	if !errors.Is(err, sarama.ErrUnknownTopicOrPartition) {
		t.Fatalf("sarama: %v, want UNKNOWN_TOPIC_OR_PARTITION", err)
	}

	md, err := kadm.NewClient(cl).ListTopics(context.Background(), "never-created")
	if err != nil {
		t.Fatal(err)
	}
	if e := md["never-created"].Err; e == nil || !strings.Contains(e.Error(), "UNKNOWN_TOPIC_OR_PARTITION") {
		t.Fatalf("topic was created or answered wrongly: %v", e)
	}
}
