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
	const partitions = "offsets.topic.num.partitions=1"
	n, cl := startTestNode(t, dir, partitions)
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
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

	n, cl = startTestNode(t, dir, partitions)
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
