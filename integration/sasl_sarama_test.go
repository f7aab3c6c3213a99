package integration

import (
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/xdg-go/scram"
)

// saramaScram adapts xdg-go/scram to sarama's SCRAMClient, as sarama's
// examples do.
type saramaScram struct {
	hash scram.HashGeneratorFcn
	conv *scram.ClientConversation
}

func (s *saramaScram) Begin(user, password, authzID string) error {
	client, err := s.hash.NewClient(user, password, authzID)
	if err != nil {
		return err
	}
	s.conv = client.NewConversation()
	return nil
}

func (s *saramaScram) Step(challenge string) (string, error) { return s.conv.Step(challenge) }
func (s *saramaScram) Done() bool                            { return s.conv.Done() }

// saramaRoundTrip produces one record with sarama and reads it back.
func saramaRoundTrip(t *testing.T, addr, topic string, cfg *sarama.Config) {
	t.Helper()
	cfg.Version = sarama.V3_9_0_0
	cfg.Producer.Return.Successes = true
	producer, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatalf("%s: %v", topic, err)
	}
	defer producer.Close()
	if _, _, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("v-" + topic)}); err != nil {
		t.Fatalf("%s: produce: %v", topic, err)
	}
	consumer, err := sarama.NewConsumer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	select {
	case m := <-pc.Messages():
		if string(m.Value) != "v-"+topic {
			t.Fatalf("%s: read %q", topic, m.Value)
		}
	case <-testContext(t).Done():
		t.Fatalf("%s: nothing read back", topic)
	}
}

func TestSASLSarama(t *testing.T) {
	b := startSASLBroker(t)
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	admin := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	ctx := testContext(t)
	for _, topic := range []string{"sarama-plain", "sarama-plain-v0", "sarama-scram"} {
		if _, err := admin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "dora", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "dora-512"}}); err != nil {
		t.Fatal(err)
	}

	cfg := sarama.NewConfig()
	cfg.Net.SASL.Enable, cfg.Net.SASL.User, cfg.Net.SASL.Password = true, "alice", "alice-secret"
	saramaRoundTrip(t, addr, "sarama-plain", cfg)

	// SaslHandshake v0: the tokens follow as bare frames.
	cfg = sarama.NewConfig()
	cfg.ApiVersionsRequest = false
	cfg.Net.SASL.Enable, cfg.Net.SASL.Version = true, sarama.SASLHandshakeV0
	cfg.Net.SASL.User, cfg.Net.SASL.Password = "alice", "alice-secret"
	saramaRoundTrip(t, addr, "sarama-plain-v0", cfg)

	cfg = sarama.NewConfig()
	cfg.Net.SASL.Enable, cfg.Net.SASL.Mechanism = true, sarama.SASLTypeSCRAMSHA512
	cfg.Net.SASL.User, cfg.Net.SASL.Password = "dora", "dora-512"
	cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &saramaScram{hash: scram.SHA512} }
	saramaRoundTrip(t, addr, "sarama-scram", cfg)

	cfg = sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Net.SASL.Enable, cfg.Net.SASL.User, cfg.Net.SASL.Password = true, "alice", "wrong"
	if _, err := sarama.NewClient([]string{addr}, cfg); err == nil {
		t.Fatal("sarama connected with a wrong password")
	}
}
