package handler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/karsttest"
)

// TestProduceToAnInternalTopicNeedsTheAdminClientID: a client writing to
// __consumer_offsets gets Kafka's INVALID_TOPIC_EXCEPTION and nothing is
// stored; with client id __admin_client the write is taken, as in Kafka.
func TestProduceToAnInternalTopicNeedsTheAdminClientID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := karsttest.Start(t, karsttest.WithConfig("offsets.topic.num.partitions", "1"))
	admin, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	offsets := kadm.Offsets{}
	offsets.AddOffset("t", 0, 1, -1)
	adm := kadm.NewClient(admin)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	if err := adm.CommitAllOffsets(ctx, "g", offsets); err != nil { // creates __consumer_offsets
		t.Fatal(err)
	}
	endOffset := func() int64 {
		t.Helper()
		ends, err := adm.ListEndOffsets(ctx, metadata.ConsumerOffsetsTopic)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := ends.Lookup(metadata.ConsumerOffsetsTopic, 0)
		return o.Offset
	}
	before := endOffset()

	produce := func(clientID string) error {
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ClientID(clientID), kgo.RecordRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		rec := &kgo.Record{Topic: metadata.ConsumerOffsetsTopic, Key: []byte("not a group record"), Value: []byte("v")}
		return cl.ProduceSync(ctx, rec).FirstErr()
	}
	if err := produce("an-application"); !errors.Is(err, kerr.InvalidTopicException) {
		t.Fatalf("produce to %s as an application: %v, want INVALID_TOPIC_EXCEPTION", metadata.ConsumerOffsetsTopic, err)
	}
	if got := endOffset(); got != before {
		t.Fatalf("the refused write moved %s's end offset from %d to %d", metadata.ConsumerOffsetsTopic, before, got)
	}
	if err := produce("__admin_client"); err != nil {
		t.Fatalf("produce to %s as __admin_client: %v", metadata.ConsumerOffsetsTopic, err)
	}
	if got := endOffset(); got != before+1 {
		t.Fatalf("%s's end offset is %d after the admin client's write, want %d", metadata.ConsumerOffsetsTopic, got, before+1)
	}
}
