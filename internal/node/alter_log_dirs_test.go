package node

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/metadata"
)

// AlterReplicaLogDirs moves a partition to the other log dir while a
// producer writes to it without pause: DescribeLogDirs shows it in the
// destination once moved (a future copy with its lag before), every
// record acknowledged before, during and after the move is read back at
// its offset, the old directory is gone, and a restart opens the
// partition from its new dir. Kafka's errors answer a dir not in
// log.dirs (before anything else) and a partition the metadata lacks.
func TestAlterReplicaLogDirsWhileProducing(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	n, cl := startOnDirs(t, newErrorMessages(), a, b)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"segment.bytes": kadm.StringPtr("1048576")}, "move"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(a, "move-0")); err != nil {
		t.Fatalf("move-0 not placed in the first dir: %v", err)
	}

	var mu sync.Mutex
	acked := map[int64][]byte{}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	stop := make(chan struct{})
	produced := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				produced <- nil
				return
			default:
			}
			value := make([]byte, 1024)
			_, _ = rand.Read(value)
			r, err := cl.ProduceSync(ctx, &kgo.Record{Topic: "move", Value: value}).First()
			if err != nil {
				produced <- err
				return
			}
			mu.Lock()
			acked[r.Offset] = r.Value
			mu.Unlock()
		}
	}()
	waitFor(t, 30*time.Second, func() bool { return count() >= 3000 })

	var req kadm.AlterReplicaLogDirsReq
	var ts kadm.TopicsSet
	ts.Add("move", 0)
	req.Add(b, ts)
	resp, err := adm.AlterBrokerReplicaLogDirs(ctx, 1, req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Each(func(r kadm.AlterReplicaLogDirsResponse) {
		if r.Err != nil {
			t.Fatalf("AlterReplicaLogDirs: %v", r.Err)
		}
	})
	sawFuture := false
	waitFor(t, 30*time.Second, func() bool {
		dirs, err := adm.DescribeBrokerLogDirs(ctx, 1, nil)
		if err != nil {
			return false
		}
		inB, inA := false, false
		dirs.EachPartition(func(p kadm.DescribedLogDirPartition) {
			switch {
			case p.Topic == "move" && p.Dir == b && p.IsFuture:
				sawFuture = true
			case p.Topic == "move" && p.Dir == b:
				inB = true
			case p.Topic == "move" && p.Dir == a:
				inA = true
			}
		})
		return inB && !inA
	})
	moved := count()
	waitFor(t, 30*time.Second, func() bool { return count() >= moved+1000 })
	close(stop)
	if err := <-produced; err != nil {
		t.Fatalf("producing across the move: %v", err)
	}
	t.Logf("acknowledged %d records, %d before the move was seen done; future copy seen: %v", count(), moved, sawFuture)
	if _, err := os.Stat(filepath.Join(a, "move-0")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old directory is still there: %v", err)
	}
	checkAcked(ctx, t, n.Addr("PLAINTEXT").String(), acked)
	waitFor(t, 10*time.Second, func() bool { return recordedDir(n, "move", 0) == n.dirIDs[b] })

	checkAlterErrors(ctx, t, adm, a)

	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	if err := n.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	n, _ = startOnDirs(t, newErrorMessages(), a, b)
	if p, ok := n.storage.Get("move", 0); !ok || p.Dir != b {
		t.Fatalf("after a restart move-0 is open %v in %+v, want in %s", ok, p, b)
	}
	checkAcked(ctx, t, n.Addr("PLAINTEXT").String(), acked)
}

// checkAcked reads move-0 from its start: every acknowledged record at its
// offset.
func checkAcked(ctx context.Context, t *testing.T, addr string, acked map[int64][]byte) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"move": {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	found := 0
	for found < len(acked) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%d of %d acknowledged records read: %v", found, len(acked), ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			if v, ok := acked[r.Offset]; ok {
				if !bytes.Equal(v, r.Value) {
					t.Fatalf("offset %d holds another value than acknowledged", r.Offset)
				}
				found++
			}
		})
	}
}

func checkAlterErrors(ctx context.Context, t *testing.T, adm *kadm.Client, liveDir string) {
	t.Helper()
	for _, c := range []struct {
		dir, topic string
		partition  int32
		want       *kerr.Error
	}{
		{filepath.Join(filepath.Dir(liveDir), "elsewhere"), "move", 0, kerr.LogDirNotFound},
		{filepath.Join(filepath.Dir(liveDir), "elsewhere"), "nosuchtopic", 0, kerr.LogDirNotFound},
		// A partition the metadata lacks: Kafka 4.4.0 answered 3 for a topic that does not exist.
		{liveDir, "nosuchtopic", 0, kerr.UnknownTopicOrPartition},
		{liveDir, "move", 7, kerr.UnknownTopicOrPartition},
	} {
		var req kadm.AlterReplicaLogDirsReq
		var ts kadm.TopicsSet
		ts.Add(c.topic, c.partition)
		req.Add(c.dir, ts)
		resp, err := adm.AlterBrokerReplicaLogDirs(ctx, 1, req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Each(func(r kadm.AlterReplicaLogDirsResponse) {
			if !errors.Is(r.Err, c.want) {
				t.Fatalf("AlterReplicaLogDirs of %s to %s: %v, want %v", c.topic, c.dir, r.Err, c.want)
			}
		})
	}
}

// recordedDir is the directory the metadata records for this node's
// replica of the partition.
func recordedDir(n *Node, topic string, partition int32) metadata.UUID {
	t, ok := n.store.Image().Topic(topic)
	if !ok {
		return metadata.UUID{}
	}
	p, ok := t.Partition(partition)
	if !ok || len(p.Directories) == 0 {
		return metadata.UUID{}
	}
	return p.Directories[0]
}
