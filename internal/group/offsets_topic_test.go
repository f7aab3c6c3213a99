package group

import (
	"context"
	"io"
	"log/slog"
	"testing"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// openBroker opens metadata and partition logs in dir, as the node does.
func openBroker(t *testing.T, dir string, records *metadata.MemoryLog) (*metadata.Store, *storage.Manager) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	mgr, err := storage.Open(dir, func(string) klog.Config { return klog.DefaultConfig() }, logger)
	if err != nil {
		t.Fatal(err)
	}
	specs := func(img *metadata.Image) []storage.Spec {
		var out []storage.Spec
		for _, tp := range img.Topics() {
			for _, p := range tp.Partitions {
				out = append(out, storage.Spec{TopicPartition: klog.TopicPartition{Topic: tp.Name, Partition: p.ID}, TopicID: klog.TopicID(tp.ID)})
			}
		}
		return out
	}
	store, err := metadata.OpenStore(records, metadata.StoreOptions{
		Node: metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1},
		OnCommit: func(_, next *metadata.Image, _ []metadata.Record) {
			if err := mgr.Reconcile(specs(next)); err != nil {
				t.Errorf("reconcile: %v", err)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Reconcile(specs(store.Image())); err != nil {
		t.Fatal(err)
	}
	return store, mgr
}

func TestOffsetsTopicPersistsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	records := &metadata.MemoryLog{}
	store, mgr := openBroker(t, dir, records)
	topic := NewOffsetsTopic(store, mgr, 7, 0)
	clock := &fakeClock{}
	c := New(testConfig(), Options{Clock: clock, Store: topic})
	_, errs, wait := c.CommitOffsets(commit("my-group-7", "", -1, 11, 12))
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("%v", errs)
	}
	if err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.CommitOffsets(commit("other", "", -1, 1))
	errsDel, waitDel := c.DeleteGroups([]string{"other"})
	if errsDel[0] != nil || waitDel(context.Background()) != nil {
		t.Fatalf("%v", errsDel)
	}

	tp, ok := store.Image().Topic(metadata.ConsumerOffsetsTopic)
	if !ok || len(tp.Partitions) != 7 {
		t.Fatalf("__consumer_offsets: %+v", tp)
	}
	if got := store.Image().TopicConfigs(metadata.ConsumerOffsetsTopic)["cleanup.policy"]; got != "compact" {
		t.Fatalf("cleanup.policy %q", got)
	}
	part, _ := mgr.Get(metadata.ConsumerOffsetsTopic, PartitionFor("my-group-7", 7))
	if part.Log.LogEndOffset() != 2 { // one batch of two offsets
		t.Fatalf("the group's partition holds %d records", part.Log.LogEndOffset())
	}
	if err := mgr.Close(); err != nil {
		t.Fatal(err)
	}

	store, mgr = openBroker(t, dir, records)
	defer mgr.Close()
	topic = NewOffsetsTopic(store, mgr, 50, 0) // the topic's real count wins
	c2 := New(testConfig(), Options{Clock: clock, Store: topic})
	if skipped, err := c2.LoadAll(); err != nil || skipped != 0 {
		t.Fatalf("load: %d skipped, %v", skipped, err)
	}
	_, got := c2.FetchOffsets("my-group-7", nil)
	if len(got) != 2 || got[0].Offset != 11 || got[1].Offset != 12 {
		t.Fatalf("%+v", got)
	}
	if d := c2.Describe([]string{"other"})[0]; d.State != "Dead" {
		t.Fatalf("deleted group is %s", d.State)
	}
	// Writes after the restart go to the same partition.
	c2.CommitOffsets(commit("my-group-7", "", -1, 13))
	if part, _ = mgr.Get(metadata.ConsumerOffsetsTopic, PartitionFor("my-group-7", 7)); part.Log.LogEndOffset() != 3 {
		t.Fatalf("log end %d", part.Log.LogEndOffset())
	}
}
