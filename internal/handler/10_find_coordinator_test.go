package handler

import (
	"io"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/share"
	"github.com/karst-broker/karst/internal/storage"
	"github.com/karst-broker/karst/internal/txn"
)

func TestFindCoordinatorEveryVersion(t *testing.T) {
	f := newGroupFixture(t)
	for v := int16(0); v <= 6; v++ {
		req := kmsg.NewPtrFindCoordinatorRequest()
		if v < 4 {
			req.CoordinatorKey = "g"
			resp := f.do(req, v).(*kmsg.FindCoordinatorResponse)
			if resp.ErrorCode != 0 || resp.NodeID != 1 || resp.Host != "127.0.0.1" || resp.Port != 9092 {
				t.Fatalf("v%d: %+v", v, resp)
			}
			continue
		}
		req.CoordinatorKeys = []string{"a", "b"}
		resp := f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if len(resp.Coordinators) != 2 || resp.Coordinators[1].Key != "b" || resp.Coordinators[1].NodeID != 1 || resp.Coordinators[0].ErrorCode != 0 {
			t.Fatalf("v%d: %+v", v, resp)
		}
		req.CoordinatorType = 1
		resp = f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if resp.Coordinators[0].ErrorCode != kerr.CoordinatorNotAvailable.Code || resp.Coordinators[0].NodeID != -1 {
			t.Fatalf("v%d transaction: %+v", v, resp)
		}
		req.CoordinatorType = 9
		resp = f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if resp.Coordinators[0].ErrorCode != kerr.InvalidRequest.Code {
			t.Fatalf("v%d bad key type: %+v", v, resp)
		}
		// Share coordinator keys need v6 and Kafka's SharePartitionKey form;
		// this broker has no share coordinator.
		req.CoordinatorType = 2
		req.CoordinatorKeys = []string{"g:AAAAAAAAAAAAAAAAAAAAAQ:0", "g:t:0", "g:AAAAAAAAAAAAAAAAAAAAAQ", "g:AAAAAAAAAAAAAAAAAAAAAQ:-1"}
		resp = f.do(req, v).(*kmsg.FindCoordinatorResponse)
		want := []int16{kerr.CoordinatorNotAvailable.Code, kerr.InvalidRequest.Code, kerr.InvalidRequest.Code, kerr.InvalidRequest.Code}
		if v < 6 {
			want[0] = kerr.InvalidRequest.Code
		}
		for i, c := range resp.Coordinators {
			if c.ErrorCode != want[i] || c.NodeID != -1 {
				t.Fatalf("v%d share key %q: %+v", v, c.Key, c)
			}
		}
	}
}

// TestFindCoordinatorWaitsForThePartition: the coordinator topics are
// created by the first lookup, but their partitions open only when
// storage reconciles with the new metadata (asynchronously in the
// broker); until the key's partition is open the broker is not named.
func TestFindCoordinatorWaitsForThePartition(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	mgr, err := storage.Open(dir, func(string) klog.Config { return klog.DefaultConfig() }, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgr.Close() })
	// No OnCommit: storage does not follow the metadata until told to.
	store, err := metadata.OpenStore(&metadata.MemoryLog{}, metadata.StoreOptions{
		Node: metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1}})
	if err != nil {
		t.Fatal(err)
	}
	gcfg := group.DefaultConfig()
	tcfg := txn.DefaultConfig()
	b := NewBroker(Options{NodeID: 1, Logger: logger, Metadata: store, Storage: mgr,
		Advertised: []Endpoint{{ListenerName: "PLAINTEXT", Host: "127.0.0.1", Port: 9092, SecurityProtocol: "PLAINTEXT"}},
		Groups:     group.New(gcfg, group.Options{Logger: logger, Store: group.NewOffsetsTopic(store, mgr, 5, 0)}),
		Txns: txn.New(tcfg, txn.Options{Logger: logger, Logs: txn.NewStateLogs(store, mgr, stateLogConfigs(t, 3)),
			ProducerIDs: txn.NewProducerIDs(func() (int64, error) { return 1 << 40, nil })}),
		ShareState: share.NewCoordinator(share.CoordinatorOptions{Logs: share.NewStateLogs(store, mgr, stateLogConfigs(t, 3)),
			UpdatesPerSnapshot: share.DefaultUpdatesPerSnapshot, Logger: logger}),
	})
	f := &adminFixture{t: t, b: b, store: store, mgr: mgr, dir: dir}
	find := func(keyType int8, v int16) (int16, int32) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType = keyType
		key := "g"
		if keyType == 2 {
			key = "g:AAAAAAAAAAAAAAAAAAAAAQ:0"
		}
		if v < 4 {
			req.CoordinatorKey = key
			resp := f.call(req, v).(*kmsg.FindCoordinatorResponse)
			return resp.ErrorCode, resp.NodeID
		}
		req.CoordinatorKeys = []string{key}
		resp := f.call(req, v).(*kmsg.FindCoordinatorResponse)
		return resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID
	}
	versions := map[int8][]int16{0: {1, 4}, 1: {1, 4}, 2: {6}}
	for _, keyType := range []int8{0, 1, 2} {
		for _, v := range versions[keyType] {
			if code, node := find(keyType, v); code != kerr.CoordinatorNotAvailable.Code || node != -1 {
				t.Fatalf("key type %d v%d before the partition opens: error %d node %d", keyType, v, code, node)
			}
		}
	}
	for _, name := range []string{metadata.ConsumerOffsetsTopic, metadata.TransactionStateTopic, metadata.ShareGroupStateTopic} {
		if _, ok := store.Image().Topic(name); !ok {
			t.Fatalf("%s was not created", name)
		}
	}
	var specs []storage.Spec
	for _, tp := range store.Image().Topics() {
		for _, p := range tp.Partitions {
			specs = append(specs, storage.Spec{TopicPartition: klog.TopicPartition{Topic: tp.Name, Partition: p.ID}, TopicID: klog.TopicID(tp.ID)})
		}
	}
	if err := mgr.Reconcile(specs); err != nil {
		t.Fatal(err)
	}
	for _, keyType := range []int8{0, 1, 2} {
		for _, v := range versions[keyType] {
			if code, node := find(keyType, v); code != 0 || node != 1 {
				t.Fatalf("key type %d v%d once open: error %d node %d", keyType, v, code, node)
			}
		}
	}
}
