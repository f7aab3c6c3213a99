package coordinator

import (
	"io"
	"log/slog"
	"testing"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// An internal topic whose spec has Configs is created with the broker's
// settings for it, and its batches are bounded by the topic's
// max.message.bytes, its own override over the broker's, read at each
// batch, as Kafka's coordinators read them.
func TestTopicLogsReadTheTopicConfiguration(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	mgr, err := storage.Open(t.TempDir(), func(string) klog.Config { return klog.DefaultConfig() }, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgr.Close() })
	store, err := metadata.OpenStore(&metadata.MemoryLog{}, metadata.StoreOptions{
		Node: metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1},
		OnCommit: func(_, next *metadata.Image, _ []metadata.Record) {
			var specs []storage.Spec
			for _, tp := range next.Topics() {
				for _, p := range tp.Partitions {
					specs = append(specs, storage.Spec{TopicPartition: klog.TopicPartition{Topic: tp.Name, Partition: p.ID}, TopicID: klog.TopicID(tp.ID)})
				}
			}
			if err := mgr.Reconcile(specs); err != nil {
				t.Errorf("reconcile: %v", err)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	settings, _, err := config.FromProperties(map[string]string{"node.id": "1",
		"transaction.state.log.num.partitions": "2", "transaction.state.log.segment.bytes": "2097152",
		"message.max.bytes": "900000"})
	if err != nil {
		t.Fatal(err)
	}
	const name = "__transaction_state"
	logs := NewTopicLogs(store, mgr, TopicSpec{Name: name, Compression: "uncompressed", Configs: config.NewLogConfigs(settings),
		PartitionsKey: "transaction.state.log.num.partitions", SegmentBytesKey: "transaction.state.log.segment.bytes"})
	if err := logs.Ensure(); err != nil {
		t.Fatal(err)
	}
	if n := logs.Partitions(); n != 2 {
		t.Fatalf("%d partitions, want transaction.state.log.num.partitions=2", n)
	}
	if got := store.Image().TopicConfigs(name)["segment.bytes"]; got != "2097152" {
		t.Fatalf("segment.bytes %q, want transaction.state.log.segment.bytes", got)
	}
	pl, err := logs.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	limit := pl.(BatchLimiter)
	if n := limit.MaxBatchBytes(); n != 900000 {
		t.Fatalf("batch bound %d, want the broker's message.max.bytes 900000", n)
	}
	if err := store.AlterConfigs(metadata.ConfigResource{Type: 2, Name: name}, map[string]string{"max.message.bytes": "5000"}); err != nil {
		t.Fatal(err)
	}
	if n := limit.MaxBatchBytes(); n != 5000 {
		t.Fatalf("batch bound %d, want the topic's max.message.bytes 5000", n)
	}
}
