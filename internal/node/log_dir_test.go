package node

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

// startTestNode starts a broker on dir, listening on 127.0.0.1, and
// returns it with a client.
func startTestNode(t *testing.T, dir string, overrides ...string) (*Node, *kgo.Client) {
	t.Helper()
	settings, _, err := config.Load("", append([]string{"listeners=PLAINTEXT://127.0.0.1:0", "log.dirs=" + dir}, overrides...))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ConfigFrom(settings)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	n, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(n.Addr("PLAINTEXT").String()))
	if err != nil {
		t.Fatal(err)
	}
	return n, cl
}

func stopTestNode(t *testing.T, n *Node, cl *kgo.Client) {
	t.Helper()
	cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// oneOffsetsPartition keeps the tests' __consumer_offsets to one directory.
const oneOffsetsPartition = "offsets.topic.num.partitions=1"

// startWithOrders starts a broker on dir with a topic "orders" of one
// partition.
func startWithOrders(ctx context.Context, t *testing.T, dir string) (*Node, *kgo.Client, *kadm.Client) {
	t.Helper()
	n, cl := startTestNode(t, dir, oneOffsetsPartition)
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	return n, cl, adm
}

// segmentBytes reads the first segment of a partition directory.
func segmentBytes(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTopicsLostFromTheMetadataAreKeptAsStray loses the metadata log of a
// broker holding a topic and committed offsets, restarts it, and creates
// the topic and commits again: the old partition directories, records and
// offsets, must be kept aside under Kafka's stray names, byte for byte,
// and the names start afresh.
func TestTopicsLostFromTheMetadataAreKeptAsStray(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	n, cl, adm := startWithOrders(ctx, t, dir)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("kept")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	offsets := kadm.Offsets{}
	offsets.AddOffset("orders", 0, 1, -1)
	if err := adm.CommitAllOffsets(ctx, "billing", offsets); err != nil {
		t.Fatal(err)
	}
	stopTestNode(t, n, cl)
	dirs := []string{"orders-0", metadata.ConsumerOffsetsTopic + "-0"}
	old := map[string][]byte{}
	for _, d := range dirs {
		old[d] = segmentBytes(t, filepath.Join(dir, d))
	}
	if err := os.RemoveAll(filepath.Join(dir, metadataLogPartition.String())); err != nil {
		t.Fatal(err)
	}

	n, cl = startTestNode(t, dir, oneOffsetsPartition)
	defer stopTestNode(t, n, cl)
	adm = kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	fetched, err := adm.FetchOffsets(ctx, "billing")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := fetched.Lookup("orders", 0); ok && o.At >= 0 {
		t.Fatalf("billing's offset came back from a topic the metadata lost: %d", o.At)
	}
	if err := adm.CommitAllOffsets(ctx, "billing", offsets); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		strays, err := filepath.Glob(filepath.Join(dir, d+".*"+klog.StraySuffix))
		if err != nil || len(strays) != 1 {
			t.Fatalf("stray directories of %s: %v, %v; want one", d, strays, err)
		}
		if !bytes.Equal(segmentBytes(t, strays[0]), old[d]) {
			t.Fatalf("%s: the stray copy's records differ from the lost topic's", d)
		}
		if _, err := os.Stat(filepath.Join(dir, d)); err != nil {
			t.Fatalf("%s was not created afresh: %v", d, err)
		}
	}
}

// TestDeletingTheOffsetsTopicForgetsItsGroups deletes __consumer_offsets,
// as Kafka allows: the offsets go with it, in memory too, a new commit
// creates the topic again, and a restart finds only the new commit.
func TestDeletingTheOffsetsTopicForgetsItsGroups(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	n, cl, adm := startWithOrders(ctx, t, dir)
	commit := func(at int64) {
		t.Helper()
		offsets := kadm.Offsets{}
		offsets.AddOffset("orders", 0, at, -1)
		if err := adm.CommitAllOffsets(ctx, "billing", offsets); err != nil {
			t.Fatal(err)
		}
	}
	committed := func() int64 {
		t.Helper()
		fetched, err := adm.FetchOffsets(ctx, "billing")
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := fetched.Lookup("orders", 0); ok {
			return o.At
		}
		return -1
	}
	commit(7)
	resp, err := adm.DeleteTopic(ctx, metadata.ConsumerOffsetsTopic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("deleting %s: %v", metadata.ConsumerOffsetsTopic, err)
	}
	if at := committed(); at >= 0 {
		t.Fatalf("billing's offset is %d after its topic was deleted", at)
	}
	commit(3)
	if at := committed(); at != 3 {
		t.Fatalf("billing's offset is %d after a new commit, want 3", at)
	}
	stopTestNode(t, n, cl)

	n, cl = startTestNode(t, dir, oneOffsetsPartition)
	defer stopTestNode(t, n, cl)
	adm = kadm.NewClient(cl)
	if at := committed(); at != 3 {
		t.Fatalf("billing's offset is %d after a restart, want 3", at)
	}
}
