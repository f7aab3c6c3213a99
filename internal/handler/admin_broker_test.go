package handler

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// adminFixture is a handler layer over a real metadata store and real
// partition logs in a temporary directory.
type adminFixture struct {
	t     *testing.T
	b     *Broker
	store *metadata.Store
	mgr   *storage.Manager
	dir   string
}

func newAdminFixture(t *testing.T, schema metadata.ConfigSchema) *adminFixture {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	mgr, err := storage.Open(dir, func(string) klog.Config {
		c := klog.DefaultConfig()
		c.FileDeleteDelay = 0
		return c
	}, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgr.Close() })
	specs := func(img *metadata.Image) []storage.Spec {
		var out []storage.Spec
		for _, tp := range img.Topics() {
			for _, p := range tp.Partitions {
				out = append(out, storage.Spec{TopicPartition: klog.TopicPartition{Topic: tp.Name, Partition: p.ID}, TopicID: klog.TopicID(tp.ID)})
			}
		}
		return out
	}
	store, err := metadata.OpenStore(&metadata.MemoryLog{}, metadata.StoreOptions{
		Node: metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1, Configs: schema},
		OnCommit: func(_, next *metadata.Image, _ []metadata.Record) {
			if err := mgr.Reconcile(specs(next)); err != nil {
				t.Errorf("reconcile: %v", err)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBroker(Options{ClusterID: "admin-cluster", NodeID: 1, Logger: logger,
		Advertised: []Endpoint{
			{ListenerName: "PLAINTEXT", Host: "127.0.0.1", Port: 9092, SecurityProtocol: "PLAINTEXT"},
			{ListenerName: "EXTERNAL", Host: "broker.example", Port: 19092, SecurityProtocol: "PLAINTEXT"},
		},
		Metadata: store, Storage: mgr, LogDir: dir})
	return &adminFixture{t: t, b: b, store: store, mgr: mgr, dir: dir}
}

// call runs req at version v as if it came on the PLAINTEXT listener.
func (f *adminFixture) call(req kmsg.Request, v int16) kmsg.Response {
	return f.callOn("PLAINTEXT", req, v)
}

func (f *adminFixture) callOn(listener string, req kmsg.Request, v int16) kmsg.Response {
	f.t.Helper()
	req.SetVersion(v)
	api := Lookup(req.Key())
	if api == nil || !api.Supports(v) {
		f.t.Fatalf("%s v%d is not served", kmsg.NameForKey(req.Key()), v)
	}
	out := f.b.Handle(context.Background(), api, &Request{Header: wireHeader(req.Key(), v), Body: req, Conn: &Conn{ListenerName: listener}})
	if out.Response == nil {
		f.t.Fatalf("%s v%d: no immediate response", kmsg.NameForKey(req.Key()), v)
	}
	return out.Response
}

func (f *adminFixture) createTopic(name string, partitions int32, configs map[string]*string) {
	f.t.Helper()
	if _, err := f.store.CreateTopic(metadata.CreateTopicRequest{Name: name, NumPartitions: partitions, ReplicationFactor: 1, Configs: configs}); err != nil {
		f.t.Fatal(err)
	}
}

// produce appends n records to a partition under leader epoch epoch.
func (f *adminFixture) produce(topic string, partition int32, n int, epoch int32) {
	f.t.Helper()
	part, ok := f.mgr.Get(topic, partition)
	if !ok {
		f.t.Fatalf("%s-%d is not open", topic, partition)
	}
	rs := make([]record.Record, n)
	for i := range rs {
		rs[i] = record.Record{TimestampDelta: int64(i), OffsetDelta: int32(i), Value: []byte("value")}
	}
	batch, err := record.Build(nil, record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, rs)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := part.Log.Append(batch, klog.AppendOptions{Origin: klog.FromClient, LeaderEpoch: epoch}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *adminFixture) log(topic string, partition int32) *klog.Log {
	f.t.Helper()
	part, ok := f.mgr.Get(topic, partition)
	if !ok {
		f.t.Fatalf("%s-%d is not open", topic, partition)
	}
	return part.Log
}

func strp(s string) *string { return &s }

// bumpLeaderEpoch re-elects this node, as a leader change would, so the
// partition's leader epoch grows by one.
func (f *adminFixture) bumpLeaderEpoch(topic string, partition int32) {
	f.t.Helper()
	tp, _ := f.store.Image().Topic(topic)
	change := metadata.NewPartitionChangeRecord(metadata.MaxMetadataVersion, tp.ID, partition)
	change.Leader = 1
	if err := f.store.Commit([]metadata.Record{change}); err != nil {
		f.t.Fatal(err)
	}
}
