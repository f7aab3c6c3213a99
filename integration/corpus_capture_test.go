package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	segkafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// corpusDir is the seed corpus of the server's FuzzDispatch target.
const corpusDir = "../internal/server/testdata/fuzz/FuzzDispatch"

// recordingProxy forwards client connections to a broker and keeps every
// request frame a client sends (without its size prefix).
type recordingProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	frames [][]byte
}

func (p *recordingProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(c)
	}
}

func (p *recordingProxy) pipe(client net.Conn) {
	defer client.Close()
	broker, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer broker.Close()
	go io.Copy(client, broker)
	for {
		var size [4]byte
		if _, err := io.ReadFull(client, size[:]); err != nil {
			return
		}
		frame := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(client, frame); err != nil {
			return
		}
		p.mu.Lock()
		p.frames = append(p.frames, frame)
		p.mu.Unlock()
		if _, err := broker.Write(append(size[:], frame...)); err != nil {
			return
		}
	}
}

// TestClientTrafficThroughRecordingProxy runs a produce/consume/admin
// session of real clients (franz-go, sarama, kafka-go, librdkafka) through
// a proxy that records their request frames, and checks every client got
// through. With KARST_CAPTURE_CORPUS=1 the frames become the FuzzDispatch
// seed corpus (committed in internal/server/testdata).
func TestClientTrafficThroughRecordingProxy(t *testing.T) {
	outDir := t.TempDir()
	if os.Getenv("KARST_CAPTURE_CORPUS") != "" {
		outDir = corpusDir
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The broker advertises the proxy, so clients send everything through it.
	b := karsttest.Start(t, karsttest.WithConfig("advertised.listeners", "PLAINTEXT://"+ln.Addr().String()))
	p := &recordingProxy{ln: ln, target: b.Addr()}
	go p.serve()
	defer ln.Close()
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("corpus"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	must := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s through the proxy: %v", what, err)
		}
	}
	_, err = adm.CreateTopic(ctx, 2, 1, map[string]*string{"retention.ms": ptr("100000")}, "corpus")
	must("franz-go CreateTopics", err)
	must("franz-go Produce", cl.ProduceSync(ctx, &kgo.Record{Topic: "corpus", Key: []byte("k"), Value: []byte("franz")}).FirstErr())
	must("franz-go Fetch", cl.PollFetches(ctx).Err())
	_, err = adm.DescribeTopicConfigs(ctx, "corpus")
	must("franz-go DescribeConfigs", err)
	_, err = adm.ListEndOffsets(ctx, "corpus")
	must("franz-go ListOffsets", err)
	cl.Close()

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Producer.Return.Successes = true
	sp, err := sarama.NewSyncProducer([]string{addr}, cfg)
	must("sarama", err)
	_, _, err = sp.SendMessage(&sarama.ProducerMessage{Topic: "corpus", Value: sarama.StringEncoder("sarama")})
	must("sarama Produce", err)
	sp.Close()
	w := &segkafka.Writer{Addr: segkafka.TCP(addr), Topic: "corpus", Transport: &segkafka.Transport{}}
	must("kafka-go Produce", w.WriteMessages(ctx, segkafka.Message{Value: []byte("kafka-go")}))
	w.Close()
	pr, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": addr})
	must("librdkafka", err)
	topic := "corpus"
	delivered := make(chan kafka.Event, 1)
	must("librdkafka Produce", pr.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte("librdkafka")}, delivered))
	select {
	case e := <-delivered:
		must("librdkafka delivery", e.(*kafka.Message).TopicPartition.Error)
	case <-ctx.Done():
		t.Fatal("librdkafka delivery timed out")
	}
	pr.Close()

	p.mu.Lock()
	defer p.mu.Unlock()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, f := range p.frames {
		if seen[string(f)] {
			continue
		}
		seen[string(f)] = true
		key := int16(binary.BigEndian.Uint16(f))
		version := int16(binary.BigEndian.Uint16(f[2:]))
		name := filepath.Join(outDir, fmt.Sprintf("client-%02d-v%02d-%03d", key, version, n))
		if err := os.WriteFile(name, []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(f))+")\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 15 {
		t.Fatalf("only %d distinct request frames went through the proxy", n)
	}
	t.Logf("wrote %d seed frames from %d captured to %s", n, len(p.frames), outDir)
}
