package node

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/metadata"
)

// A log dir that fails is recorded in __cluster_metadata as Kafka's
// controller records a broker's offline dirs (handleDirectoriesOffline):
// its partitions get a PartitionChangeRecord without a leader (leader
// epoch bumped; with eligible leader replicas, ISR empty and the node in
// the ELR) and the broker registration keeps the other dir alone. The
// state survives a restart with the dir still broken (nothing new is
// written), and a restart with the dir healthy brings its partitions back
// with a leader (epoch bumped again) and every record. Until 2026-12-02
// the offline state was only answered, never recorded: the image kept the
// node as leader.
func TestFailedLogDirIsRecordedOfflineAndComesBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	n, cl, a, b := startWithJbodOnTwoDirs(ctx, t, 5)
	waitFor(t, 10*time.Second, func() bool { return recordedDir(n, "jbod", 1) == n.dirIDs[b] })
	idA, idB := n.dirIDs[a], n.dirIDs[b]
	before := partitionState(t, n, 1)

	// Fails at run time.
	n.dirFailures.MaybeAddOfflineLogDir(b, "Error while appending records in dir "+b, syscall.EIO)
	waitFor(t, 10*time.Second, func() bool { return partitionState(t, n, 1).Leader == -1 })
	offline := partitionState(t, n, 1)
	checkOfflineRecorded(t, n, before, offline, idA)
	if p0 := partitionState(t, n, 0); p0.Leader != 1 {
		t.Fatalf("jbod-0 in the live dir: %+v, want led by 1", p0)
	}
	stopTestNode(t, n, cl)

	// Restarted with b still broken: the records stand, none is added.
	breakLock(t, b)
	n, cl = startOnDirs(t, newErrorMessages(), a, b)
	if got := partitionState(t, n, 1); got.Leader != -1 || got.LeaderEpoch != offline.LeaderEpoch {
		t.Fatalf("jbod-1 after a restart with its dir broken: %+v, want %+v", got, offline)
	}
	if codes := listOffsetsCodes(ctx, t, cl, "jbod", 2); codes[0] != 0 || codes[1] != kerr.NotLeaderForPartition.Code {
		t.Fatalf("ListOffsets error codes %v, want jbod-0 served and jbod-1 NOT_LEADER_OR_FOLLOWER (never loaded: its dir failed before the start)", codes)
	}
	checkMetadataAnswers(ctx, t, cl, map[int32]string{0: a, 1: b}, b)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: 0, Value: []byte("w")}).FirstErr(); err != nil {
		t.Fatalf("producing to the live dir: %v", err)
	}
	stopTestNode(t, n, cl)

	// Healthy again: back with a leader and its records.
	replaceWithFile(t, filepath.Join(b, ".lock"))
	n, cl = startOnDirs(t, newErrorMessages(), a, b)
	back := partitionState(t, n, 1)
	if back.Leader != 1 || back.LeaderEpoch != offline.LeaderEpoch+1 || !slices.Equal(back.ISR, []int32{1}) ||
		len(back.EligibleLeaderReplicas) != 0 || len(back.LastKnownELR) != 0 {
		t.Fatalf("jbod-1 with its dir healthy again: %+v (offline it was %+v)", back, offline)
	}
	if reg, _ := n.store.Image().Broker(1); !sameDirSet(reg.LogDirs, []metadata.UUID{idA, idB}) {
		t.Fatalf("registration %v, want both dirs", reg.LogDirs)
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "jbod")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[int32]int64{0: 6, 1: 5} {
		if end, _ := ends.Lookup("jbod", p); end.Err != nil || end.Offset != want {
			t.Fatalf("end offset of jbod-%d: %+v, want %d", p, end, want)
		}
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: 1, Value: []byte("w")}).FirstErr(); err != nil {
		t.Fatalf("producing to the dir back online: %v", err)
	}
}

// A dir that fails while the broker is down (found broken at start) is
// recorded the same way from the start.
func TestLogDirBrokenWhileDownIsRecordedOfflineAtStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n, cl, a, b := startWithJbodOnTwoDirs(ctx, t, 3)
	waitFor(t, 10*time.Second, func() bool { return recordedDir(n, "jbod", 1) == n.dirIDs[b] })
	idA := n.dirIDs[a]
	before := partitionState(t, n, 1)
	stopTestNode(t, n, cl)

	breakLock(t, b)
	n, cl = startOnDirs(t, newErrorMessages(), a, b)
	checkOfflineRecorded(t, n, before, partitionState(t, n, 1), idA)
	checkMetadataAnswers(ctx, t, cl, map[int32]string{0: a, 1: b}, b)
}

// checkOfflineRecorded: the partition lost its leader with one epoch
// bump, the node left the ISR for the ELR and is the last known leader
// (ELR is on in a new cluster),
// the directory stayed, and the registration lists live alone.
func checkOfflineRecorded(t *testing.T, n *Node, before, after metadata.Partition, live metadata.UUID) {
	t.Helper()
	if after.Leader != -1 || after.LeaderEpoch != before.LeaderEpoch+1 || len(after.ISR) != 0 ||
		!slices.Equal(after.EligibleLeaderReplicas, []int32{1}) || !slices.Equal(after.LastKnownELR, []int32{1}) ||
		!slices.Equal(after.Directories, before.Directories) {
		t.Fatalf("partition of the failed dir: %+v, was %+v", after, before)
	}
	if reg, _ := n.store.Image().Broker(1); !slices.Equal(reg.LogDirs, []metadata.UUID{live}) {
		t.Fatalf("registration lists %v, want the live dir alone", reg.LogDirs)
	}
}

// startWithJbodOnTwoDirs starts a broker on log dirs a and b with a topic
// "jbod" of two partitions, jbod-0 in a and jbod-1 in b (fewest
// partitions first), each given records records.
func startWithJbodOnTwoDirs(ctx context.Context, t *testing.T, records int) (n *Node, cl *kgo.Client, a, b string) {
	t.Helper()
	root := t.TempDir()
	a, b = filepath.Join(root, "a"), filepath.Join(root, "b")
	n, cl = startOnDirs(t, newErrorMessages(), a, b)
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 2, 1, nil, "jbod"); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 2; p++ {
		for i := 0; i < records; i++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: p, Value: []byte{byte(i)}}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return n, cl, a, b
}

func partitionState(t *testing.T, n *Node, partition int32) metadata.Partition {
	t.Helper()
	topic, ok := n.store.Image().Topic("jbod")
	if !ok {
		t.Fatal("no topic jbod")
	}
	p, ok := topic.Partition(partition)
	if !ok {
		t.Fatalf("no jbod-%d", partition)
	}
	return *p
}

func sameDirSet(a, b []metadata.UUID) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(d metadata.UUID) bool { return !slices.Contains(b, d) })
}

// replaceWithFile puts an empty file back where replaceWithDir put a
// directory.
func replaceWithFile(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, path, "")
}
