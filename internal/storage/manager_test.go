package storage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

func specs(topic string, id klog.TopicID, n int) []Spec {
	out := make([]Spec, n)
	for i := range out {
		out[i] = Spec{TopicPartition: klog.TopicPartition{Topic: topic, Partition: int32(i)}, TopicID: id}
	}
	return out
}

func openManager(t *testing.T, dir string, threads int) *Manager {
	t.Helper()
	m, err := Open(dir, func(string) klog.Config { return klog.DefaultConfig() }, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.SetRecoveryThreads(threads)
	return m
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// TestReconcileOpensEveryPartitionAndKeepsMetadata opens many partitions on
// several threads, reopens them, and checks partition.metadata is written
// once (a rewrite is an atomic replace, so a new inode), not on every start.
func TestReconcileOpensEveryPartitionAndKeepsMetadata(t *testing.T) {
	dir := t.TempDir()
	id := klog.TopicID{1, 2, 3}
	want := specs("t", id, 40)
	m := openManager(t, dir, 4)
	if err := m.Reconcile(want); err != nil {
		t.Fatal(err)
	}
	if got := len(m.All()); got != len(want) {
		t.Fatalf("%d partitions open, want %d", got, len(want))
	}
	meta := filepath.Join(dir, "t-7", klog.PartitionMetadataFile)
	before := inode(t, meta)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	m = openManager(t, dir, 4)
	if err := m.Reconcile(want); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := len(m.All()); got != len(want) {
		t.Fatalf("%d partitions open after reopening, want %d", got, len(want))
	}
	if after := inode(t, meta); after != before {
		t.Fatalf("partition.metadata was rewritten on reopen (inode %d -> %d)", before, after)
	}
	if got, err := klog.ReadPartitionMetadata(filepath.Dir(meta)); err != nil || got != id {
		t.Fatalf("partition.metadata = %v, %v; want %v", got, err, id)
	}
}

// appendRecords writes n one-record batches to a partition.
func appendRecords(t *testing.T, p *Partition, n int) {
	t.Helper()
	for i := range n {
		b, err := record.Build(nil, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
			[]record.Record{{Value: []byte(fmt.Sprintf("record %d of %s", i, p.TopicPartition))}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Log.Append(b, klog.AppendOptions{Origin: klog.FromClient, LeaderEpoch: -1}); err != nil {
			t.Fatal(err)
		}
	}
}

// dirBytes reads every file of a directory, by name.
func dirBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
	}
	return out
}

// strayDirs lists the stray directories of tp in the log dir.
func strayDirs(t *testing.T, dir string, tp klog.TopicPartition) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, tp.String()+".*"+klog.StraySuffix))
	if err != nil {
		t.Fatal(err)
	}
	return matches
}

// filledLogDir makes a log dir holding topic t (id 1, 3 partitions) with
// records, closed with its checkpoints, and returns each partition's files.
func filledLogDir(t *testing.T) (string, map[klog.TopicPartition]map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	m := openManager(t, dir, 2)
	if err := m.Reconcile(specs("t", klog.TopicID{1}, 3)); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.All() {
		appendRecords(t, p, 5)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[klog.TopicPartition]map[string][]byte{}
	for i := range 3 {
		tp := klog.TopicPartition{Topic: "t", Partition: int32(i)}
		files[tp] = dirBytes(t, filepath.Join(dir, tp.String()))
	}
	return dir, files
}

// checkKeptAsStray: tp's old directory is now one stray directory with
// the same files, byte for byte.
func checkKeptAsStray(t *testing.T, dir string, tp klog.TopicPartition, want map[string][]byte) {
	t.Helper()
	strays := strayDirs(t, dir, tp)
	if len(strays) != 1 {
		t.Fatalf("%s: stray directories %v, want one", tp, strays)
	}
	got := dirBytes(t, strays[0])
	if len(got) != len(want) {
		t.Fatalf("%s: stray directory has files %d, want %d", tp, len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Fatalf("%s: %s changed in the stray directory", tp, name)
		}
	}
	if !regexp.MustCompile(`^t-\d+\.[0-9a-f]{32}-stray$`).MatchString(filepath.Base(strays[0])) {
		t.Fatalf("stray directory name %s is not Kafka's <topic>-<partition>.<uuid>-stray", filepath.Base(strays[0]))
	}
}

// TestReconcileKeepsAnEarlierTopicsDirectoryAsStray: at start, directories
// whose partition.metadata names another topic id than the metadata's for
// that partition (the topic was lost and created again) are kept aside
// with their data, and the new topic starts empty at offset 0.
func TestReconcileKeepsAnEarlierTopicsDirectoryAsStray(t *testing.T) {
	dir, files := filledLogDir(t)
	m := openManager(t, dir, 2)
	defer m.Close()
	newID := klog.TopicID{9}
	if err := m.Reconcile(specs("t", newID, 3)); err != nil {
		t.Fatal(err)
	}
	for tp, want := range files {
		checkKeptAsStray(t, dir, tp, want)
		got, err := klog.ReadPartitionMetadata(filepath.Join(dir, tp.String()))
		if err != nil || got != newID {
			t.Fatalf("%s metadata = %v, %v; want %v", tp, got, err, newID)
		}
		p, _ := m.Get(tp.Topic, tp.Partition)
		if p.Log.LogStartOffset() != 0 || p.Log.LogEndOffset() != 0 {
			t.Fatalf("%s of the new topic spans [%d, %d), want an empty log from 0", tp, p.Log.LogStartOffset(), p.Log.LogEndOffset())
		}
	}
}

// TestReconcileKeepsALostTopicsDirectoryAsStray: at start, directories of
// a topic the metadata does not have at all are kept aside, so creating
// the name again later (CreateTopics, auto-create) finds no old data in its
// place and deletes nothing.
func TestReconcileKeepsALostTopicsDirectoryAsStray(t *testing.T) {
	dir, files := filledLogDir(t)
	m := openManager(t, dir, 2)
	defer m.Close()
	if err := m.Reconcile(nil); err != nil {
		t.Fatal(err)
	}
	for tp, want := range files {
		checkKeptAsStray(t, dir, tp, want)
	}
	if err := m.Reconcile(specs("t", klog.TopicID{9}, 3)); err != nil {
		t.Fatal(err)
	}
	for tp, want := range files {
		checkKeptAsStray(t, dir, tp, want)
	}
}

// TestReconcileKeepsMatchingDirectories: a restart with the same metadata
// moves nothing aside.
func TestReconcileKeepsMatchingDirectories(t *testing.T) {
	dir, files := filledLogDir(t)
	m := openManager(t, dir, 2)
	defer m.Close()
	if err := m.Reconcile(specs("t", klog.TopicID{1}, 3)); err != nil {
		t.Fatal(err)
	}
	for tp := range files {
		if strays := strayDirs(t, dir, tp); len(strays) != 0 {
			t.Fatalf("%s: stray directories %v after a restart with the same metadata", tp, strays)
		}
		p, _ := m.Get(tp.Topic, tp.Partition)
		if p.Log.LogEndOffset() != 5 {
			t.Fatalf("%s: log end offset %d after restart, want 5", tp, p.Log.LogEndOffset())
		}
	}
}
