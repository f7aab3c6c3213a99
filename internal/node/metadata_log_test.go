package node

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

const testNodeID = 3

// newLogDir makes a formatted log dir and returns it with the path of its
// __cluster_metadata-0.
func newLogDir(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	mp := klog.MetaProperties{Version: 1, ClusterID: metadata.RandomUUID().String(), NodeID: testNodeID, DirectoryID: metadata.RandomUUID().String()}
	if err := klog.WriteMetaProperties(dir, mp); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, metadataLogPartition.String())
}

func openMetadataLog(t *testing.T, dir string) *metadataLog {
	t.Helper()
	cfg := klog.DefaultConfig()
	cfg.RetentionTime, cfg.RetentionBytes = -1, -1
	l, err := klog.Open(dir, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return &metadataLog{log: l, now: time.Now}
}

func openTestStore(t *testing.T, m *metadataLog) *metadata.Store {
	t.Helper()
	s, err := metadata.OpenStore(m, metadata.StoreOptions{Node: metadata.Node{ID: testNodeID, DefaultPartitions: 1, DefaultReplicationFactor: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// logBatches parses every batch of the log's segments.
func logBatches(t *testing.T, dir string) []metadata.Batch {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var out []metadata.Batch
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		for len(data) > 0 {
			b, rest, err := metadata.ParseBatch(data)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
			data = rest
		}
	}
	return out
}

func quorumState(t *testing.T, dir string) metadata.QuorumState {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, metadata.QuorumStateFileName))
	if err != nil {
		t.Fatal(err)
	}
	q, err := metadata.ParseQuorumState(b)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Each process that writes starts a raft epoch as Kafka's leader does:
// quorum-state first, then a LeaderChangeMessage control batch, then its
// data batches, epochs never decreasing along the log.
func TestMetadataLogRaftEpochs(t *testing.T) {
	_, dir := newLogDir(t)
	m := openMetadataLog(t, dir)
	s := openTestStore(t, m)
	if q := quorumState(t, dir); q.LeaderID != testNodeID || q.LeaderEpoch != 1 || q.VotedID != -1 {
		t.Fatalf("quorum-state %+v", q)
	}
	if _, err := os.Stat(filepath.Join(dir, metadata.BootstrapSnapshotFileName)); err != nil {
		t.Fatalf("bootstrap snapshot: %v", err)
	}
	if _, err := s.CreateTopic(metadata.CreateTopicRequest{Name: "a", NumPartitions: 2, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	m.log.Close()

	// A restart that writes nothing leaves the log alone...
	m = openMetadataLog(t, dir)
	s = openTestStore(t, m)
	if m.epoch.Load() != 0 {
		t.Fatalf("restart without writes started epoch %d", m.epoch.Load())
	}
	// ...and the first write starts the next epoch.
	if _, err := s.CreateTopic(metadata.CreateTopicRequest{Name: "b", NumPartitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	if q := quorumState(t, dir); q.LeaderEpoch != 2 {
		t.Fatalf("quorum-state after second start %+v", q)
	}
	m.log.Close()

	batches := logBatches(t, dir)
	var epoch int32
	for i, b := range batches {
		if b.LeaderEpoch < epoch {
			t.Fatalf("batch %d at epoch %d after epoch %d", i, b.LeaderEpoch, epoch)
		}
		if b.LeaderEpoch > epoch {
			epoch = b.LeaderEpoch
			typ, err := metadata.ParseControlKey(b.Records[0].Key)
			if !b.Control || err != nil || typ != metadata.ControlLeaderChange {
				t.Fatalf("epoch %d opens with batch %+v, want a LeaderChangeMessage", epoch, b.BatchHeader)
			}
			lc, err := metadata.DecodeControl(typ, b.Records[0].Value)
			if err != nil || lc.(*metadata.LeaderChangeMessage).LeaderID != testNodeID {
				t.Fatalf("leader change %+v %v", lc, err)
			}
		}
	}
	if epoch != 2 {
		t.Fatalf("last epoch %d, want 2", epoch)
	}
	img := openTestStore(t, openMetadataLog(t, dir)).Image()
	if _, ok := img.Topic("a"); !ok {
		t.Fatal("topic a lost")
	}
	if _, ok := img.Topic("b"); !ok {
		t.Fatal("topic b lost")
	}
}

// A log dir whose segments before a snapshot are gone (as Kafka leaves it)
// replays from the newest snapshot and continues at the next epoch.
func TestMetadataLogStartsFromSnapshot(t *testing.T) {
	_, dir := newLogDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	topic := metadata.RandomUUID()
	recs := []metadata.Record{
		&metadata.FeatureLevelRecord{Name: metadata.FeatureMetadataVersion, FeatureLevel: metadata.MetadataVersion41IV1},
		&metadata.TopicRecord{Name: "t", TopicID: topic},
		&metadata.PartitionRecord{Version: 2, PartitionID: 0, TopicID: topic,
			Replicas: []int32{testNodeID}, ISR: []int32{testNodeID}, Leader: testNodeID},
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(metadata.SnapshotFileName(10, 4), metadata.BuildSnapshot(4, 0, 0, recs))
	// An older snapshot, one past the log end and an unfinished one are not used.
	write(metadata.SnapshotFileName(5, 3), []byte("not a snapshot"))
	write(metadata.SnapshotFileName(99, 4), []byte("not a snapshot"))
	write(metadata.SnapshotFileName(12, 4)+".part", []byte("not a snapshot"))
	// The log holds offsets 10 and 11 only.
	v := "7"
	write("00000000000000000010.log", metadata.BuildMetadataBatch(10, 4, 0, []metadata.Record{
		&metadata.ConfigRecord{ResourceType: metadata.ConfigResourceTopic, ResourceName: "t", Name: "retention.ms", Value: &v},
		&metadata.NoOpRecord{},
	}))

	m := openMetadataLog(t, dir)
	if m.log.LogStartOffset() != 10 || m.log.LogEndOffset() != 12 {
		t.Fatalf("log [%d, %d), want [10, 12)", m.log.LogStartOffset(), m.log.LogEndOffset())
	}
	s := openTestStore(t, m)
	img := s.Image()
	if _, ok := img.Topic("t"); !ok || img.TopicConfigs("t")["retention.ms"] != "7" || img.MetadataVersion() != metadata.MetadataVersion41IV1 {
		t.Fatalf("image from snapshot and log: topic %v configs %v", ok, img.TopicConfigs("t"))
	}
	// Opening registered the node: one append, at the epoch after the snapshot's.
	if m.epoch.Load() != 5 {
		t.Fatalf("epoch %d, want 5", m.epoch.Load())
	}
}

func TestMetadataLogWithoutSnapshotForItsStart(t *testing.T) {
	_, dir := newLogDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000010.log"),
		metadata.BuildMetadataBatch(10, 4, 0, []metadata.Record{&metadata.NoOpRecord{}}), 0o644); err != nil {
		t.Fatal(err)
	}
	m := openMetadataLog(t, dir)
	if _, err := metadata.OpenStore(m, metadata.StoreOptions{Node: metadata.Node{ID: testNodeID}}); err == nil {
		t.Fatal("a log missing its start replayed without a snapshot")
	}
}
