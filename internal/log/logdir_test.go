package log

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestOffsetCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), RecoveryPointCheckpointFile)
	m, err := ReadOffsetCheckpoint(path)
	if err != nil || len(m) != 0 {
		t.Fatalf("missing file: %v %v", m, err)
	}
	want := map[TopicPartition]int64{{"b", 1}: 5, {"a", 10}: 7, {"a", 2}: 0}
	if err := WriteOffsetCheckpoint(path, want); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "0\n3\na 2 0\na 10 7\nb 1 5\n" {
		t.Fatalf("file %q", data)
	}
	got, err := ReadOffsetCheckpoint(path)
	if err != nil || len(got) != 3 || got[TopicPartition{"a", 10}] != 7 {
		t.Fatalf("read back %v %v", got, err)
	}
	os.WriteFile(path, []byte("0\n2\na 1 1\n"), 0o644)
	if _, err := ReadOffsetCheckpoint(path); err == nil {
		t.Fatal("short file accepted")
	}
}

func TestMetaProperties(t *testing.T) {
	dir := t.TempDir()
	// As Kafka 4 writes it.
	kafka := "#\n#Thu Jan 01 00:00:00 UTC 2026\nnode.id=1\ndirectory.id=2Q8iT7DrRzu9ViWVsgxqXw\nversion=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n"
	os.WriteFile(filepath.Join(dir, MetaPropertiesFile), []byte(kafka), 0o644)
	mp, err := ReadMetaProperties(dir)
	if err != nil || mp.NodeID != 1 || mp.ClusterID != "MkU3OEVBNTcwNTJENDM2Qk" || mp.DirectoryID != "2Q8iT7DrRzu9ViWVsgxqXw" || mp.Version != 1 {
		t.Fatalf("%+v %v", mp, err)
	}
	mp.NodeID = 3
	if err := WriteMetaProperties(dir, mp); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, MetaPropertiesFile))
	if !strings.Contains(string(data), "node.id=3\n") || !strings.Contains(string(data), "version=1\n") {
		t.Fatalf("written %q", data)
	}
	back, err := ReadMetaProperties(dir)
	if err != nil || back.NodeID != 3 || back.ClusterID != mp.ClusterID {
		t.Fatalf("%+v %v", back, err)
	}
}

func TestPartitionMetadata(t *testing.T) {
	dir := t.TempDir()
	id, err := ParseTopicID("sk2lG8l8SmGsoR3dD5rNIg")
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePartitionMetadata(dir, id); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, PartitionMetadataFile))
	if string(data) != "version: 0\ntopic_id: sk2lG8l8SmGsoR3dD5rNIg" {
		t.Fatalf("%q", data)
	}
	got, err := ReadPartitionMetadata(dir)
	if err != nil || got != id {
		t.Fatalf("%v %v", got, err)
	}
}

func TestParseTopicPartition(t *testing.T) {
	topic, p, ok := ParseTopicPartition("/data/my-topic-12")
	if !ok || topic != "my-topic" || p != 12 {
		t.Fatal(topic, p, ok)
	}
	if _, _, ok := ParseTopicPartition("/data/nodash"); ok {
		t.Fatal("accepted")
	}
}

func TestCheckpointLogDir(t *testing.T) {
	root := t.TempDir()
	a := openTest(t, filepath.Join(root, "a-0"), testConfig())
	b := openTest(t, filepath.Join(root, "b-3"), testConfig())
	mustAppend(t, a, makeBatch(t, 5, 1, "v"))
	a.Close() // flushes: recovery point 5
	if err := CheckpointLogDir(root, []*Log{a, b}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	c, err := ReadLogDirCheckpoints(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.RecoveryPoints[TopicPartition{"a", 0}] != 5 || c.HighWatermarks[TopicPartition{"a", 0}] != 5 ||
		c.LogStartOffsets[TopicPartition{"b", 3}] != 0 || len(c.RecoveryPoints) != 2 {
		t.Fatalf("%+v", c)
	}
	if err := WriteCleanShutdownFile(root, 42); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, CleanShutdownFile))
	if string(data) != `{"version":0,"brokerEpoch":42}` {
		t.Fatalf("%s", data)
	}
	clean, epoch, err := ConsumeCleanShutdownFile(root)
	if !clean || epoch != 42 || err != nil {
		t.Fatal(clean, epoch, err)
	}
	if clean, _, _ := ConsumeCleanShutdownFile(root); clean {
		t.Fatal("marker not removed")
	}
	if parseBrokerEpoch([]byte(`{"version":"0","broker_epoch":"7"}`)) != 7 {
		t.Fatal("string form")
	}
}

func TestListPartitionDirsAndDelete(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a-0", "a-1", "b-0.abc-delete", "__cluster_metadata-0", "notapartition"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	got, err := ListPartitionDirs(root)
	if err != nil || len(got) != 2 || got[TopicPartition{"a", 1}] != filepath.Join(root, "a-1") {
		t.Fatalf("%v %v", got, err)
	}
	l := openTest(t, filepath.Join(root, "a-0"), testConfig())
	mustAppend(t, l, makeBatch(t, 1, 1, "v"))
	if err := l.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a-0")); !os.IsNotExist(err) {
		t.Fatal("dir still there")
	}
}

func TestUpdateConfigWhileAppending(t *testing.T) {
	l := openTest(t, filepath.Join(t.TempDir(), "t-0"), testConfig())
	defer l.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			mustAppend(t, l, makeBatch(t, 1, 1, "v"))
		}
	}()
	for i := 0; i < 20; i++ {
		cfg := testConfig()
		cfg.MaxMessageBytes = 100000 + i
		cfg.RetentionBytes = int64(1 << 20)
		l.UpdateConfig(cfg)
	}
	<-done
	if l.Config().MaxMessageBytes != 100019 {
		t.Fatal("config not applied")
	}
}

// TestStrayDirNameIsKafkasAndFits: "<topic>-<partition>.<32 hex>-stray",
// the topic cut short so that a 249-byte topic name still fits in 255.
func TestStrayDirNameIsKafkasAndFits(t *testing.T) {
	pattern := regexp.MustCompile(`^(t+)-7\.[0-9a-f]{32}-stray$`)
	for _, n := range []int{1, 249} {
		name := StrayDirName(TopicPartition{Topic: strings.Repeat("t", n), Partition: 7})
		m := pattern.FindStringSubmatch(name)
		if m == nil || len(name) > 255 {
			t.Fatalf("stray name %q (%d bytes) for a %d-byte topic", name, len(name), n)
		}
		if n == 1 && m[1] != "t" {
			t.Fatalf("short topic cut in %q", name)
		}
	}
	tp := TopicPartition{"a", 0}
	if first, second := StrayDirName(tp), StrayDirName(tp); first == second {
		t.Fatal("two stray names for one partition are equal")
	}
}
