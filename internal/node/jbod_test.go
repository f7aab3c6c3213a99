package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
)

// Two log dirs: each is locked and formatted (one cluster id, its own
// directory.id), new partitions alternate between them as Kafka's
// nextLogDirs places them, and when the second fails its partitions
// answer KAFKA_STORAGE_ERROR (Metadata: no leader, this node offline;
// DescribeLogDirs: the dir with error 56) while the first's keep every
// record and serve; when the first fails too the broker shuts down with
// Kafka's message.
func TestTwoLogDirsOneFails(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	logs := newErrorMessages()
	n, cl := startOnDirs(t, logs, a, b)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 4, 1, nil, "jbod"); err != nil {
		t.Fatal(err)
	}
	checkFormatted(t, a, b)
	inDir := map[int32]string{}
	for p := int32(0); p < 4; p++ {
		for _, d := range []string{a, b} {
			if _, err := os.Stat(filepath.Join(d, fmt.Sprintf("jbod-%d", p))); err == nil {
				inDir[p] = d
			}
		}
	}
	if want := map[int32]string{0: a, 1: b, 2: a, 3: b}; fmt.Sprint(inDir) != fmt.Sprint(want) {
		t.Fatalf("partitions placed %v, want %v (fewest partitions first)", inDir, want)
	}
	// Recorded in the metadata as Kafka's controller records the broker's
	// AssignReplicasToDirs, and both dirs registered.
	waitFor(t, 10*time.Second, func() bool {
		for p, d := range inDir {
			if recordedDir(n, "jbod", p) != n.dirIDs[d] {
				return false
			}
		}
		return true
	})
	if reg, ok := n.store.Image().Broker(1); !ok || len(reg.LogDirs) != 2 {
		t.Fatalf("broker registration %+v, want both log dirs", reg)
	}
	for p := int32(0); p < 4; p++ {
		for i := 0; i < 10; i++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: p, Value: []byte{byte(i)}}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}

	n.dirFailures.MaybeAddOfflineLogDir(b, "Error while appending records in dir "+b, syscall.EIO)
	waitFor(t, 10*time.Second, func() bool { return n.storage.DirOffline(b) })

	ends, err := adm.ListEndOffsets(ctx, "jbod")
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 4; p++ {
		end, _ := ends.Lookup("jbod", p)
		if inDir[p] == b && !errorsIs(end.Err, kerr.KafkaStorageError) {
			t.Fatalf("ListOffsets of jbod-%d in the failed dir: %+v, want KAFKA_STORAGE_ERROR", p, end)
		}
		if inDir[p] == a && (end.Err != nil || end.Offset != 10) {
			t.Fatalf("ListOffsets of jbod-%d in the live dir: %+v, want 10", p, end)
		}
	}
	checkProduceAnswers(ctx, t, cl, inDir, b)
	checkMetadataAnswers(ctx, t, cl, inDir, b)
	checkDescribeLogDirs(ctx, t, adm, a, b)
	for p, d := range inDir {
		if d != a {
			continue
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: p, Value: []byte("after")}).FirstErr(); err != nil {
			t.Fatalf("producing to jbod-%d in the live dir: %v", p, err)
		}
	}
	select {
	case <-n.Failed():
		t.Fatalf("the broker stopped with a dir left: %v", n.Failure())
	default:
	}

	n.dirFailures.MaybeAddOfflineLogDir(a, "Error while appending records in dir "+a, syscall.EIO)
	select {
	case <-n.Failed():
	case <-time.After(20 * time.Second):
		t.Fatal("the broker did not stop once both dirs failed")
	}
	want := fmt.Sprintf("Shutdown broker because all log dirs in %s, %s have failed", a, b)
	if !slices.Contains(logs.all(), want) {
		t.Fatalf("no ERROR %q: %q", want, logs.all())
	}
}

// startOnDirs starts a broker on the log dirs (the first holds the
// metadata log), shut down when the test ends, with a client that picks
// partitions by the record's.
func startOnDirs(t *testing.T, logs errorMessages, dirs ...string) (*Node, *kgo.Client) {
	t.Helper()
	cfg := configOn(t, dirs[0], logs)
	cfg.DataDirs = dirs
	n, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(n.Addr("PLAINTEXT").String()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Shutdown(ctx)
	})
	return n, cl
}

func errorsIs(err error, target *kerr.Error) bool {
	return err != nil && strings.Contains(err.Error(), target.Message)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkFormatted: both dirs locked, one cluster, two directory ids.
func checkFormatted(t *testing.T, dirs ...string) {
	t.Helper()
	ids := map[string]bool{}
	clusters := map[string]bool{}
	for _, d := range dirs {
		mp, err := klog.ReadMetaProperties(d)
		if err != nil {
			t.Fatal(err)
		}
		if mp.DirectoryID == "" {
			t.Fatalf("%s: no directory.id", d)
		}
		ids[mp.DirectoryID] = true
		clusters[mp.ClusterID] = true
		if _, err := os.Stat(filepath.Join(d, ".lock")); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != len(dirs) || len(clusters) != 1 {
		t.Fatalf("directory ids %v, cluster ids %v", ids, clusters)
	}
}

// checkProduceAnswers sends a Produce to every partition and checks the
// failed dir's answer KAFKA_STORAGE_ERROR before anything is parsed.
func checkProduceAnswers(ctx context.Context, t *testing.T, cl *kgo.Client, inDir map[int32]string, failed string) {
	t.Helper()
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "jbod"
	md, err := kadm.NewClient(cl).Metadata(ctx, "jbod")
	if err != nil {
		t.Fatal(err)
	}
	rt.TopicID = md.Topics["jbod"].ID // Produce v13 names topics by id
	for p, d := range inDir {
		if d != failed {
			continue
		}
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition = p
		rp.Records = []byte("not parsed")
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := cl.Broker(1).Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range resp.(*kmsg.ProduceResponse).Topics {
		for _, pr := range tr.Partitions {
			if pr.ErrorCode != kerr.KafkaStorageError.Code {
				t.Fatalf("produce to jbod-%d in the failed dir: error %d, want 56", pr.Partition, pr.ErrorCode)
			}
		}
	}
}

func checkMetadataAnswers(ctx context.Context, t *testing.T, cl *kgo.Client, inDir map[int32]string, failed string) {
	t.Helper()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr("jbod")
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl) // not kadm's, which may answer from kgo's cache
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range resp.Topics[0].Partitions {
		offline := inDir[p.Partition] == failed
		if offline != (p.Leader == -1 && slices.Equal(p.OfflineReplicas, []int32{1}) && p.ErrorCode == kerr.LeaderNotAvailable.Code) {
			t.Fatalf("metadata of jbod-%d (offline %v): leader %d, offline %v, error %d", p.Partition, offline, p.Leader, p.OfflineReplicas, p.ErrorCode)
		}
	}
}

func checkDescribeLogDirs(ctx context.Context, t *testing.T, adm *kadm.Client, live, failed string) {
	t.Helper()
	all, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dirs := all[1]
	if d := dirs[failed]; !errorsIs(d.Err, kerr.KafkaStorageError) {
		t.Fatalf("DescribeLogDirs of the failed dir: %+v", d)
	}
	d := dirs[live]
	if d.Err != nil || d.TotalBytes <= 0 || len(d.Topics["jbod"]) != 2 {
		t.Fatalf("DescribeLogDirs of the live dir: err %v, total %d, partitions %v", d.Err, d.TotalBytes, d.Topics["jbod"])
	}
}

// A dir that fails while the broker starts (here its
// recovery-point-offset-checkpoint is garbage) is taken offline alone:
// the broker starts, that dir's partitions answer KAFKA_STORAGE_ERROR and
// the other dir's serve, as Kafka goes on with its live log dirs.
func TestOneOfTwoLogDirsFailsAtStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n, cl, a, b := startWithJbodOnTwoDirs(ctx, t, 1)
	cl.Close()
	if err := n.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, klog.RecoveryPointCheckpointFile), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := newErrorMessages()
	n, cl = startOnDirs(t, logs, a, b)
	if !n.storage.DirOffline(b) || n.storage.DirOffline(a) {
		t.Fatalf("offline: a %v, b %v; want b alone", n.storage.DirOffline(a), n.storage.DirOffline(b))
	}
	codes := listOffsetsCodes(ctx, t, cl, "jbod", 2)
	if codes[0] != 0 || codes[1] != kerr.KafkaStorageError.Code {
		t.Fatalf("ListOffsets error codes %v, want jbod-0 served and jbod-1 KAFKA_STORAGE_ERROR", codes)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: 0, Value: []byte("w")}).FirstErr(); err != nil {
		t.Fatalf("producing to the live dir: %v", err)
	}
	if !slices.ContainsFunc(logs.all(), func(m string) bool { return strings.HasPrefix(m, "Error while reading checkpoint file ") }) {
		t.Fatalf("no ERROR naming the checkpoint: %q", logs.all())
	}
}

// listOffsetsCodes asks the broker itself for the latest offsets of the
// first n partitions and returns their error codes.
func listOffsetsCodes(ctx context.Context, t *testing.T, cl *kgo.Client, topic string, n int32) map[int32]int16 {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for p := int32(0); p < n; p++ {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := cl.Broker(1).Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int32]int16{}
	for _, pr := range resp.(*kmsg.ListOffsetsResponse).Topics[0].Partitions {
		codes[pr.Partition] = pr.ErrorCode
	}
	return codes
}
