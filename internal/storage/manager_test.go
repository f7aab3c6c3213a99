package storage

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	klog "github.com/karst-broker/karst/internal/log"
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

// TestReconcileReplacesAnEarlierTopicsDirectory: a directory left by a
// deleted topic of the same name is removed and the partition starts empty
// under the new topic id.
func TestReconcileReplacesAnEarlierTopicsDirectory(t *testing.T) {
	dir := t.TempDir()
	m := openManager(t, dir, 2)
	if err := m.Reconcile(specs("t", klog.TopicID{1}, 3)); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = openManager(t, dir, 2)
	defer m.Close()
	newID := klog.TopicID{9}
	if err := m.Reconcile(specs("t", newID, 3)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, err := klog.ReadPartitionMetadata(filepath.Join(dir, klog.TopicPartition{Topic: "t", Partition: int32(i)}.String()))
		if err != nil || got != newID {
			t.Fatalf("partition %d metadata = %v, %v; want %v", i, got, err, newID)
		}
	}
}
