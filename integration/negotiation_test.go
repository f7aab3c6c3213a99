package integration

import (
	"context"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	segkafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestFranzGoNegotiatesVersions(t *testing.T) {
	b := karsttest.Start(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	versions, err := kadm.NewClient(cl).ApiVersions(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, bv := range versions.Sorted() {
		bv := bv
		if bv.Err != nil {
			t.Fatalf("broker %d: %v", bv.NodeID, bv.Err)
		}
		if v, ok := bv.KeyMaxVersion(18); !ok || v < 3 {
			t.Fatalf("ApiVersions max %d (ok %v), want at least 3", v, ok)
		}
	}
}

func TestSaramaNegotiatesVersions(t *testing.T) {
	b := karsttest.Start(t)
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Net.DialTimeout = 5 * time.Second
	cfg.Metadata.Retry.Max = 1
	broker := sarama.NewBroker(b.Addr())
	if err := broker.Open(cfg); err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	resp, err := broker.ApiVersions(&sarama.ApiVersionsRequest{Version: 3, ClientSoftwareName: "sarama", ClientSoftwareVersion: "1.61.1"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode != 0 || len(resp.ApiKeys) == 0 {
		t.Fatalf("ApiVersions: error %d, %d keys", resp.ErrorCode, len(resp.ApiKeys))
	}
	client, err := sarama.NewClient([]string{b.Addr()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if len(client.Brokers()) != 1 {
		t.Fatalf("sarama sees %d brokers, want 1", len(client.Brokers()))
	}
}

func TestKafkaGoNegotiatesVersions(t *testing.T) {
	b := karsttest.Start(t)
	client := &segkafka.Client{Addr: segkafka.TCP(b.Addr()), Timeout: 10 * time.Second}
	resp, err := client.ApiVersions(testContext(t), &segkafka.ApiVersionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil || len(resp.ApiKeys) == 0 {
		t.Fatalf("ApiVersions: error %v, %d keys", resp.Error, len(resp.ApiKeys))
	}
	md, err := client.Metadata(testContext(t), &segkafka.MetadataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Brokers) != 1 || md.Brokers[0].Port == 0 {
		t.Fatalf("metadata brokers %+v", md.Brokers)
	}
}

func TestConfluentKafkaGoNegotiatesVersions(t *testing.T) {
	b := karsttest.Start(t)
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{
		"bootstrap.servers":   b.Addr(),
		"api.version.request": true,
		"socket.timeout.ms":   10000,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	md, err := admin.GetMetadata(nil, true, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Brokers) != 1 || md.Brokers[0].ID != 1 {
		t.Fatalf("metadata brokers %+v", md.Brokers)
	}
}
