package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestJBODOneDirFillsUnderLoad runs the broker on two log dirs, the second
// a 3 MiB tmpfs the test mounts, and produces to partitions on both until
// the tmpfs is full: that dir's partitions go offline with Kafka's
// KAFKA_STORAGE_ERROR (ListOffsets, DescribeLogDirs), while the first
// dir's partitions keep serving and hold every record acknowledged, at its
// offset, before and after. Root only (mount).
func TestJBODOneDirFillsUnderLoad(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount("tmpfs", b, "tmpfs", 0, "size=3m"); err != nil {
		t.Skipf("no tmpfs for the failing dir: %v", err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	logFile, err := os.Create(filepath.Join(root, "karst.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(buildKarst(t), "serve",
		"--override", "listeners=PLAINTEXT://"+addr,
		"--override", "log.dirs="+a+","+b,
		"--override", "log.index.size.max.bytes=65536",
		"--override", "offsets.topic.num.partitions=1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if err := syscall.Unmount(b, 0); err != nil {
			t.Errorf("unmounting %s: %v", b, err)
		}
	})
	k := &karstProcess{t: t, addr: addr}
	k.waitListening(30 * time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RecordRetries(2), kgo.RecordDeliveryTimeout(5*time.Second), kgo.MaxBufferedRecords(64))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 4, 1, nil, "jbod"); err != nil {
		t.Fatal(err)
	}
	live := map[int32]bool{0: true, 2: true} // fewest partitions first: 0 and 2 in a, 1 and 3 in b
	for p := range live {
		if _, err := os.Stat(filepath.Join(a, fmt.Sprintf("jbod-%d", p))); err != nil {
			t.Fatalf("jbod-%d not in the first dir: %v", p, err)
		}
	}

	acked := newAckLedger()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for p := int32(0); p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			produceUntil(ctx, cl, p, stop, acked)
		}()
	}
	failedDir := waitForOfflineDir(ctx, t, adm, b)
	// The live dir keeps taking writes after the failure.
	before := acked.count(0) + acked.count(2)
	deadline := time.Now().Add(30 * time.Second)
	for acked.count(0)+acked.count(2) < before+200 {
		if time.Now().After(deadline) {
			t.Fatalf("the live dir's partitions took %d records in 30 s after the other dir failed", acked.count(0)+acked.count(2)-before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if !errors.Is(failedDir.Err, kerr.KafkaStorageError) {
		t.Fatalf("DescribeLogDirs of the failed dir: %v", failedDir.Err)
	}
	// Straight to the broker: kadm's ListEndOffsets stops at the
	// Metadata answer (no leader) and never asks.
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = "jbod"
	for p := int32(0); p < 4; p++ {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := cl.Broker(1).Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range resp.(*kmsg.ListOffsetsResponse).Topics[0].Partitions {
		if !live[pr.Partition] && pr.ErrorCode != kerr.KafkaStorageError.Code {
			t.Fatalf("ListOffsets of jbod-%d in the failed dir: error %d, want KAFKA_STORAGE_ERROR", pr.Partition, pr.ErrorCode)
		}
		if live[pr.Partition] && (pr.ErrorCode != 0 || pr.Offset < int64(acked.count(pr.Partition))) {
			t.Fatalf("ListOffsets of jbod-%d in the live dir: error %d, end %d, %d acknowledged", pr.Partition, pr.ErrorCode, pr.Offset, acked.count(pr.Partition))
		}
	}
	for p := range live {
		acked.verify(ctx, t, addr, p)
	}
	t.Logf("acknowledged: jbod-0 %d, jbod-1 %d, jbod-2 %d, jbod-3 %d", acked.count(0), acked.count(1), acked.count(2), acked.count(3))
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the broker exited with a log dir left: %v", err)
	}
}

// ackLedger is what the broker acknowledged, per partition and offset.
type ackLedger struct {
	mu     sync.Mutex
	values map[int32]map[int64][]byte
}

func newAckLedger() *ackLedger { return &ackLedger{values: map[int32]map[int64][]byte{}} }

func (l *ackLedger) add(r *kgo.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.values[r.Partition] == nil {
		l.values[r.Partition] = map[int64][]byte{}
	}
	l.values[r.Partition][r.Offset] = r.Value
}

func (l *ackLedger) count(p int32) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.values[p])
}

// verify reads the partition from its start and checks every
// acknowledged record is there at its offset.
func (l *ackLedger) verify(ctx context.Context, t *testing.T, addr string, p int32) {
	t.Helper()
	l.mu.Lock()
	want := l.values[p]
	l.mu.Unlock()
	var last int64 = -1
	for off := range want {
		last = max(last, off)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"jbod": {p: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	found := 0
	for found < len(want) {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("jbod-%d: %d of %d acknowledged records read: %v", p, found, len(want), err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if v, ok := want[r.Offset]; ok {
				if !bytes.Equal(v, r.Value) {
					t.Fatalf("jbod-%d offset %d: another value than acknowledged", p, r.Offset)
				}
				found++
			}
		})
	}
}

// produceUntil produces 4 KiB records to one partition until stop.
func produceUntil(ctx context.Context, cl *kgo.Client, p int32, stop <-chan struct{}, acked *ackLedger) {
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		value := make([]byte, 4096)
		_, _ = rand.Read(value)
		res := cl.ProduceSync(ctx, &kgo.Record{Topic: "jbod", Partition: p, Value: value})
		if r, err := res.First(); err == nil {
			acked.add(r)
		} else if p%2 == 1 {
			time.Sleep(50 * time.Millisecond) // the failed dir's partitions: keep asking, slower
		}
	}
}

// waitForOfflineDir waits until DescribeLogDirs reports dir failed.
func waitForOfflineDir(ctx context.Context, t *testing.T, adm *kadm.Client, dir string) kadm.DescribedLogDir {
	t.Helper()
	for {
		all, err := adm.DescribeAllLogDirs(ctx, nil)
		if err == nil {
			if d, ok := all[1][dir]; ok && d.Err != nil {
				return d
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("%s never went offline: %v", dir, ctx.Err())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
