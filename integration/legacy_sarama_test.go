package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// legacySaramaVersions are the protocol generations sarama speaks when its
// Version is set to an old release: Produce v0/Fetch v0 and message format
// v0 (0.8.2), Produce v1/Fetch v1 (0.9), Produce v2/Fetch v2 and message
// format v1 (0.10.0), Fetch v3 (0.10.2).
var legacySaramaVersions = []sarama.KafkaVersion{sarama.V0_8_2_0, sarama.V0_9_0_0, sarama.V0_10_0_0, sarama.V0_10_2_0}

// TestSaramaOldVersionsProduceAndConsume: sarama at each old Version
// produces with gzip, snappy and no compression through SyncProducer, reads
// it back with its Consumer, and commits and fetches an offset with its
// OffsetManager; franz-go (Fetch v12+, records as stored) reads the same
// keys and values, and magic 1 timestamps.
func TestSaramaOldVersionsProduceAndConsume(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	admin := kadm.NewClient(cl)
	for _, version := range legacySaramaVersions {
		t.Run(version.String(), func(t *testing.T) {
			topic := "sarama-" + version.String()
			if _, err := admin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
				t.Fatal(err)
			}
			cfg := sarama.NewConfig()
			cfg.Version = version
			cfg.Producer.Return.Successes = true
			cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
			cfg.Net.DialTimeout = 5 * time.Second
			var sent []*sarama.ProducerMessage
			stamp := time.UnixMilli(1_700_000_000_000)
			for _, codec := range []sarama.CompressionCodec{sarama.CompressionNone, sarama.CompressionGZIP, sarama.CompressionSnappy} {
				cfg.Producer.Compression = codec
				producer, err := sarama.NewSyncProducer([]string{b.Addr()}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				var msgs []*sarama.ProducerMessage
				for i := range 3 {
					msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: 0,
						Key:       sarama.StringEncoder(fmt.Sprintf("k-%s-%d", codec, i)),
						Value:     sarama.StringEncoder(fmt.Sprintf("v-%s-%d", codec, i)),
						Timestamp: stamp.Add(time.Duration(len(sent)+i) * time.Millisecond)})
				}
				if err := producer.SendMessages(msgs); err != nil {
					t.Fatalf("%s: %v", codec, err)
				}
				producer.Close()
				sent = append(sent, msgs...)
			}
			for i, m := range sent {
				if m.Offset != int64(i) {
					t.Fatalf("message %d answered offset %d", i, m.Offset)
				}
			}

			consumer, err := sarama.NewConsumer([]string{b.Addr()}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer consumer.Close()
			pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Close()
			for i, want := range sent {
				select {
				case m := <-pc.Messages():
					wk, _ := want.Key.Encode()
					wv, _ := want.Value.Encode()
					if m.Offset != int64(i) || string(m.Key) != string(wk) || string(m.Value) != string(wv) {
						t.Fatalf("read %d %q %q, want %d %q %q", m.Offset, m.Key, m.Value, i, wk, wv)
					}
					if version.IsAtLeast(sarama.V0_10_0_0) && !m.Timestamp.Equal(want.Timestamp) {
						t.Fatalf("offset %d timestamp %v, want %v", i, m.Timestamp, want.Timestamp)
					}
				case err := <-pc.Errors():
					t.Fatal(err)
				case <-ctx.Done():
					t.Fatalf("read %d of %d", i, len(sent))
				}
			}

			// What the old producer wrote, as a current client reads it.
			fetched := consumeAll(t, b.Addr(), topic, len(sent))
			for i, r := range fetched {
				wk, _ := sent[i].Key.Encode()
				wv, _ := sent[i].Value.Encode()
				if string(r.Key) != string(wk) || string(r.Value) != string(wv) {
					t.Fatalf("franz-go read %q %q at %d", r.Key, r.Value, i)
				}
				if version.IsAtLeast(sarama.V0_10_0_0) && !r.Timestamp.Equal(sent[i].Timestamp) {
					t.Fatalf("franz-go read timestamp %v at %d, want %v", r.Timestamp, i, sent[i].Timestamp)
				}
			}

			saramaCommitAndFetch(t, b.Addr(), cfg, topic)
		})
	}
}

// saramaCommitAndFetch commits an offset with sarama's OffsetManager and
// reads it back with a new one.
func saramaCommitAndFetch(t *testing.T, addr string, cfg *sarama.Config, topic string) {
	t.Helper()
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	group := "group-" + topic
	for round, offset := range []int64{5, -1} {
		client, err := sarama.NewClient([]string{addr}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		om, err := sarama.NewOffsetManagerFromClient(group, client)
		if err != nil {
			t.Fatal(err)
		}
		pom, err := om.ManagePartition(topic, 0)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			pom.MarkOffset(offset, "meta")
			om.Commit()
		} else if got, meta := pom.NextOffset(); got != 5 || meta != "meta" {
			t.Fatalf("committed offset read back as %d %q", got, meta)
		}
		select {
		case err := <-pom.Errors():
			t.Fatal(err)
		default:
		}
		pom.AsyncClose()
		om.Close()
		client.Close()
	}
}

// consumeAll reads n records of partition 0 of topic with franz-go.
func consumeAll(t *testing.T, addr, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := testContext(t)
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d records", len(out), n)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatal(err) })
		out = append(out, fs.Records()...)
	}
	return out
}

// TestSaramaMagicZeroOnALogAppendTimeTopic: a 0.10.0 producer (Produce v2)
// and a 0.8.2 one (magic 0, no timestamp) write to a LogAppendTime topic;
// Produce v2 answers the broker's time, and a 0.10.0 consumer (magic 1)
// reads that time for both.
func TestSaramaMagicZeroOnALogAppendTimeTopic(t *testing.T) {
	b := karsttest.Start(t)
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	lat := "LogAppendTime"
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, map[string]*string{"message.timestamp.type": &lat}, "lat"); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	var answered []time.Time
	for _, version := range []sarama.KafkaVersion{sarama.V0_10_0_0, sarama.V0_8_2_0} {
		cfg := sarama.NewConfig()
		cfg.Version = version
		cfg.Producer.Return.Successes = true
		producer, err := sarama.NewSyncProducer([]string{b.Addr()}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msg := &sarama.ProducerMessage{Topic: "lat", Value: sarama.StringEncoder("v"), Timestamp: time.UnixMilli(1000)}
		if _, _, err := producer.SendMessage(msg); err != nil {
			t.Fatal(err)
		}
		producer.Close()
		answered = append(answered, msg.Timestamp)
	}
	if answered[0].Before(before) {
		t.Fatalf("Produce v2 answered log append time %v", answered[0])
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_0_0
	consumer, err := sarama.NewConsumer([]string{b.Addr()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition("lat", 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	for i := range 2 {
		select {
		case m := <-pc.Messages():
			if m.Timestamp.Before(before) || i == 0 && !m.Timestamp.Equal(answered[0]) {
				t.Fatalf("offset %d read with timestamp %v (answered %v)", m.Offset, m.Timestamp, answered[0])
			}
		case <-ctx.Done():
			t.Fatal("nothing read back")
		}
	}
}
