package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

func keyed(t *testing.T, key, value string) []byte {
	t.Helper()
	b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		[]record.Record{{Key: []byte(key), Value: []byte(value)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCleanerPicksCompactedPartitionsAndCheckpoints: of a compacted topic,
// a delete-only topic and __consumer_offsets (compacted, as Kafka creates
// it), the two compacted ones are cleaned and the other is not; their
// cleaned offsets land in cleaner-offset-checkpoint in Kafka's format, are
// read back by a new cleaner, and a partition cleaned to its dirty end is
// not picked again.
func TestCleanerPicksCompactedPartitionsAndCheckpoints(t *testing.T) {
	dir := t.TempDir()
	cfgFor := func(topic string) klog.Config {
		c := klog.DefaultConfig()
		c.SegmentBytes = 200
		c.SegmentIndexBytes = 4096
		c.FileDeleteDelay = 0
		c.Compaction = klog.CompactionConfig{Compact: topic != "plain", MinCleanableDirtyRatio: 0.5, DeleteRetention: time.Hour}
		return c
	}
	m, err := Open(dir, cfgFor, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var specs []Spec
	for i, topic := range []string{"compacted", "plain", "__consumer_offsets"} {
		specs = append(specs, Spec{TopicPartition: klog.TopicPartition{Topic: topic, Partition: 0}, TopicID: klog.TopicID{byte(i + 1)}})
	}
	if err := m.Reconcile(specs); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		p, _ := m.Get(s.Topic, 0)
		for i := 0; i < 20; i++ {
			if _, err := p.Log.Append(keyed(t, fmt.Sprintf("k%d", i%2), fmt.Sprint(i)), klog.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	sizes := map[string]int64{}
	for _, s := range specs {
		p, _ := m.Get(s.Topic, 0)
		sizes[s.Topic] = p.Log.Size()
	}
	c := m.NewCleaner(CleanerConfig{Enable: true, Threads: 1, DedupeBufferBytes: 1 << 20, LoadFactor: 0.9})
	for i := 0; i < 2; i++ {
		if !c.CleanFilthiest(context.Background()) {
			t.Fatalf("pass %d cleaned nothing", i+1)
		}
	}
	if c.CleanFilthiest(context.Background()) {
		t.Fatal("a third partition was cleaned: only two topics are compacted")
	}
	data, err := os.ReadFile(filepath.Join(dir, CleanerOffsetCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	activeBase := func(topic string) int64 {
		p, _ := m.Get(topic, 0)
		bases := p.Log.SegmentBaseOffsets()
		return bases[len(bases)-1]
	}
	wants := []string{
		fmt.Sprintf("0\n2\n__consumer_offsets 0 %d\ncompacted 0 %d\n", activeBase("__consumer_offsets"), activeBase("compacted")),
		fmt.Sprintf("0\n2\ncompacted 0 %d\n__consumer_offsets 0 %d\n", activeBase("compacted"), activeBase("__consumer_offsets")),
	}
	if string(data) != wants[0] && string(data) != wants[1] {
		t.Fatalf("checkpoint %q, want %q", data, wants[0])
	}
	if again := m.NewCleaner(CleanerConfig{Enable: true, Threads: 1, DedupeBufferBytes: 1 << 20}); again.CleanFilthiest(context.Background()) {
		t.Fatal("a new cleaner did not start from the checkpoint")
	}
	for topic, size := range sizes {
		q, _ := m.Get(topic, 0)
		if cleaned := q.Log.Size() < size; cleaned != (topic != "plain") {
			t.Fatalf("%s: %d bytes before the cleaner, %d after", topic, size, q.Log.Size())
		}
	}
	// Kafka's gauges: the last pass (of __consumer_offsets or compacted,
	// 20 records over 2 keys) rewrote a fraction of what it read; its
	// offset map of 1 MiB held 2 of some 43,000 slots (0%, truncated);
	// the last choice found nothing dirty.
	st := c.Status()
	if st.LastPass == nil || len(st.Uncleanable) != 0 || st.CleanerRecopyPercent <= 0 || st.CleanerRecopyPercent >= 100 ||
		st.MaxBufferUtilizationPercent != 0 || st.MaxDirtyPercent != 0 || st.DeadThreadCount != 0 ||
		st.UncleanablePartitions[dir] != 0 || len(st.UncleanablePartitions) != 1 || st.TimeSinceLastRun < 0 || st.TimeSinceLastRun > time.Minute {
		t.Fatalf("status %+v", st)
	}
	if want := int(100 * float64(st.LastPass.BytesWritten) / float64(st.LastPass.BytesRead)); st.CleanerRecopyPercent != want {
		t.Fatalf("cleaner-recopy-percent %d, want %d from the last pass %+v", st.CleanerRecopyPercent, want, *st.LastPass)
	}
}

// TestCleanerMarksACorruptPartitionUncleanable: a compacted partition
// whose segment fails its CRC is reported uncleanable and skipped, the
// cleaner goes on with the others.
func TestCleanerMarksACorruptPartitionUncleanable(t *testing.T) {
	dir := t.TempDir()
	cfgFor := func(string) klog.Config {
		c := klog.DefaultConfig()
		c.SegmentBytes = 200
		c.SegmentIndexBytes = 4096
		c.FileDeleteDelay = 0
		c.Compaction = klog.CompactionConfig{Compact: true, MinCleanableDirtyRatio: 0.5}
		return c
	}
	m, err := Open(dir, cfgFor, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	specs := []Spec{{TopicPartition: klog.TopicPartition{Topic: "bad", Partition: 0}, TopicID: klog.TopicID{1}},
		{TopicPartition: klog.TopicPartition{Topic: "good", Partition: 0}, TopicID: klog.TopicID{2}}}
	if err := m.Reconcile(specs); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		p, _ := m.Get(s.Topic, 0)
		n := 20
		if s.Topic == "good" {
			n = 12 // less dirty: picked second
		}
		for i := 0; i < n; i++ {
			if _, err := p.Log.Append(keyed(t, fmt.Sprintf("k%d", i%2), fmt.Sprint(i)), klog.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	bad, _ := m.Get("bad", 0)
	f, err := os.OpenFile(klog.FileName(bad.Log.Dir(), 0, klog.LogSuffix), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff}, 70); err != nil { // a record byte: the CRC no longer matches
		t.Fatal(err)
	}
	f.Close()
	c := m.NewCleaner(CleanerConfig{Enable: true, Threads: 1, DedupeBufferBytes: 1 << 20, LoadFactor: 0.9})
	for c.CleanFilthiest(context.Background()) {
	}
	st := c.Status()
	if fmt.Sprint(st.Uncleanable) != "[bad-0]" {
		t.Fatalf("uncleanable %v, want [bad-0]", st.Uncleanable)
	}
	// uncleanable-partitions-count and uncleanable-bytes of the log dir:
	// the bad partition and its dirty bytes (all but the active segment).
	if st.UncleanablePartitions[dir] != 1 || st.UncleanableBytes[dir] <= 0 || st.UncleanableBytes[dir] >= bad.Log.Size() {
		t.Fatalf("uncleanable partitions %v, bytes %v (the log holds %d bytes)", st.UncleanablePartitions, st.UncleanableBytes, bad.Log.Size())
	}
	data, err := os.ReadFile(filepath.Join(dir, CleanerOffsetCheckpointFile))
	if err != nil || !strings.Contains(string(data), "good 0 ") || strings.Contains(string(data), "bad") {
		t.Fatalf("checkpoint %q (%v): the good partition should be cleaned, the bad one not", data, err)
	}
}
