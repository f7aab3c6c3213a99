package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// TestAlterReplicaLogDirsWhileTheCleanerRuns moves a compacted partition
// to the broker's other log dir with AlterReplicaLogDirs while a throttled
// cleaning pass is under way on it: the pass is aborted, the move completes (DescribeLogDirs
// shows it in the new dir, no future replica left), the old dir's
// cleaner-offset-checkpoint no longer lists it, the cleaner goes on in the
// new dir up to its active segment, and a consumer reads each key's last
// value, each key once below the cleaned offset.
func TestAlterReplicaLogDirsWhileTheCleanerRuns(t *testing.T) {
	root := t.TempDir()
	dirs := []string{filepath.Join(root, "a"), filepath.Join(root, "b")}
	var logs syncBuffer
	b := karsttest.StartWithLog(t, &logs, karsttest.WithConfig("log.dirs", strings.Join(dirs, ",")),
		karsttest.WithConfig("log.cleaner.backoff.ms", "20"),
		// 300 kB/s: a pass over the 1.6 MB written takes seconds.
		karsttest.WithConfig("log.cleaner.io.max.bytes.per.second", "300000"))
	ctx := testContext(t)
	const topic, keys = "moved-compact", 30
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	createCompacted(t, ctx, kadm.NewClient(cl), topic, "3600000")
	last := map[string]string{}
	pad := strings.Repeat("m", 2000)
	write := func(from, to int) {
		recs := make([]*kgo.Record, 0, to-from)
		for i := from; i < to; i++ {
			k, v := fmt.Sprintf("key-%02d", i%keys), fmt.Sprintf("v%d-%s", i, pad)
			recs = append(recs, &kgo.Record{Key: []byte(k), Value: []byte(v)})
			last[k] = v
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 800)
	from := logDirOf(t, ctx, cl, topic)
	to := dirs[0]
	if from == to {
		to = dirs[1]
	}
	partDir := filepath.Join(from, topic+"-0")
	deadline := time.Now().Add(time.Minute)
	for !hasSuffixFile(partDir, ".cleaned") {
		if time.Now().After(deadline) {
			t.Fatalf("no cleaning pass started in %s: %v", partDir, dirNames(partDir))
		}
		time.Sleep(2 * time.Millisecond)
	}

	req := kmsg.NewPtrAlterReplicaLogDirsRequest()
	d := kmsg.NewAlterReplicaLogDirsRequestDir()
	d.Dir = to
	rt := kmsg.NewAlterReplicaLogDirsRequestDirTopic()
	rt.Topic, rt.Partitions = topic, []int32{0}
	d.Topics = append(d.Topics, rt)
	req.Dirs = append(req.Dirs, d)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("AlterReplicaLogDirs answered %+v", resp.Topics)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode); err != nil {
		t.Fatalf("AlterReplicaLogDirs: %v", err)
	}
	write(800, 1000) // while the copy runs
	for logDirOf(t, ctx, cl, topic) != to {
		if ctx.Err() != nil {
			t.Fatalf("%s-0 never reached %s", topic, to)
		}
		time.Sleep(10 * time.Millisecond)
	}
	write(1000, 1100)
	if len(logs.linesWith(`msg="cleaning aborted" partition=`+topic+"-0")) == 0 {
		t.Fatal("the move did not abort the pass under way (no \"cleaning aborted\" logged)")
	}
	if off := cleanedOffset(from, topic); off != -1 {
		t.Fatalf("%s's cleaner-offset-checkpoint still lists the moved partition at %d", from, off)
	}
	deadline = time.Now().Add(2 * time.Minute)
	for cleanedOffset(to, topic) < activeBase(t, to, topic) {
		if time.Now().After(deadline) {
			t.Fatalf("not cleaned in %s to its active segment %d: cleaned to %d", to, activeBase(t, to, topic), cleanedOffset(to, topic))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cleaned := cleanedOffset(to, topic)
	got := readPartition(t, ctx, b.Addr(), topic)
	seen, lastSeen := map[string]bool{}, map[string]string{}
	for _, r := range got {
		if r.Offset < cleaned {
			if seen[string(r.Key)] {
				t.Errorf("%s more than once below the cleaned offset %d", r.Key, cleaned)
			}
			seen[string(r.Key)] = true
		}
		lastSeen[string(r.Key)] = string(r.Value)
	}
	if len(lastSeen) != keys {
		t.Fatalf("%d keys read, %d written", len(lastSeen), keys)
	}
	for k, v := range last {
		if lastSeen[k] != v {
			t.Errorf("%s: last value read %.12q, last written %.12q", k, lastSeen[k], v)
		}
	}
	t.Logf("moved from %s to %s during a pass; cleaned there to %d; %d records of 1100 left", from, to, cleaned, len(got))
}

// logDirOf is the log dir DescribeLogDirs places partition 0 of topic in,
// "" while a future replica of it exists.
func logDirOf(t *testing.T, ctx context.Context, cl *kgo.Client, topic string) string {
	t.Helper()
	resp, err := kmsg.NewPtrDescribeLogDirsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	var in string
	for _, d := range resp.Dirs {
		for _, dt := range d.Topics {
			if dt.Topic != topic {
				continue
			}
			for _, p := range dt.Partitions {
				if p.IsFuture {
					return ""
				}
				if p.Partition == 0 {
					in = d.Dir
				}
			}
		}
	}
	return in
}
